// motion.js: the 3D view of an entry (view3d.js and timeline.js, loaded when an entry opens):
// which skeleton poses it, which clip of its file plays, what it says when it cannot.

import { authorised, api } from '/api.js';
import { renderBones, markBone } from '/bones.js';
import { trackRange, drawCursor, readoutAt, readoutNow } from '/chart.js';
import { $, text, make } from '/dom.js';
import { openEntry, selectTracks } from '/entry.js';
import { state, writeUrl, writeUrlSoon } from '/state.js';
import { count } from '/words.js';
import { offerRetarget, retargetQuery, showRetarget } from '/retarget.js';

// The 3D view and its timeline, made once (their modules and three.js loaded the first time an
// entry opens); {off: why} when they cannot be.
let starting = null;
export function motionView() {
  if (!starting) starting = makeMotionView();
  return starting;
}

// The readout follows playback (and a scrub): asked again at the frame shown once its last
// answer has come and READOUT_EVERY_FRAMES frames have been drawn since (ten times a second at
// 60 frames a second, less on a slow machine, never a request a frame); the exact readout comes
// when playback stops.
const READOUT_EVERY_FRAMES = 6;
const follow = { frames: 0, asking: false };

function followReadout(t) {
  if (++follow.frames < READOUT_EVERY_FRAMES || follow.asking) return;
  follow.frames = 0;
  follow.asking = true;
  readoutAt(t).catch((e) => text($('#readout'), e.message)).finally(() => { follow.asking = false; });
}

async function makeMotionView() {
  try {
    const module = await import('/view3d.js');
    const { Timeline } = await import('/timeline.js');
    if (!module.webglAvailable()) {
      state.motion = { off: 'This browser has no WebGL, so the 3D view is off; the chart and the rest of the page work as ever.' };
    } else {
      state.motion = { skeleton: null };
      state.motion.view = new module.MotionView({
        api,
        auth: () => authorised(),
        window: () => state.window || trackRange(),
        onTime: (t, exact) => {
          state.time = t;
          drawCursor();
          if (state.motion.timeline) state.motion.timeline.drawPlayhead();
          if (exact) { readoutAt(t).catch((e) => text($('#readout'), e.message)); writeUrlSoon(); }
          else followReadout(t);
        },
        onSelectTracks: selectTracks,
        onSelectNode: markBone,
        onMeshNote: motionMessage,
        onChange: writeUrlSoon,
        retarget: retargetQuery,
      });
      state.motion.timeline = new Timeline({
        view: () => state.motion.view,
        window: () => state.window || trackRange(),
        // each charted track's key times; null for more than the pixels tell apart
        tracks: () => state.selected.map((n) => ({ n, times: state.keyTimes.has(n) ? state.keyTimes.get(n) : [] })),
        onLoop: (range) => { state.motion.view.setRange(range); writeUrlSoon(); },
      });
      // another rate of frames: the timeline's frame ticks at once
      $('#fps').addEventListener('change', () => { state.motion.timeline.draw(); readoutNow(); });
      // counting in frames (at the rate above) or seconds: the ruler, the time and the readout
      $('#in-frames').addEventListener('change', () => {
        state.motion.view.inFrames = $('#in-frames').checked;
        state.motion.view.updatePlayback();
        state.motion.timeline.draw();
        readoutNow(); // in the unit the page counts in now
      });
    }
  } catch (e) {
    state.motion = { off: `The 3D view could not start (${e.message}); is three.js installed (libjs-three, animdexd --three)?` };
  }
  return state.motion;
}

export function motionMessage(message) {
  const element = $('#view-message');
  element.hidden = !message;
  text(element, message || '');
}

export async function showMotion(entry, restore = {}) {
  const motion = await motionView();
  const parts = ['#view-controls', '#view-box', '#timeline', '#timeline-keys', '#playback', '#joints-box'];
  const visible = (on) => { for (const p of parts) $(p).hidden = !on; };
  if (motion.off) { visible(false); motionMessage(motion.off); return; }
  motionMessage('');
  const options = [];
  let ranked = null;
  if (entry.rig) options.push({ value: 'own', label: `its own rig (${entry.rig.length} nodes)` });
  try {
    ranked = await api(`/api/resources/${entry.id}/skeletons`);
  } catch (e) { ranked = { targets: 0, skeletons: [] }; }
  for (const s of ranked.skeletons) {
    options.push({ value: String(s.id), label: `${s.name || s.crc32} (${s.class}, entry ${s.id}): ${s.matched} of ${ranked.targets}`, skeleton: s });
  }
  // the catalogue's other skeletons, which have none of its targets: offered only to an entry
  // with a rig of its own, whose motion can be retargeted onto them (posed on one directly, an
  // entry without a rig would only stand at rest)
  for (const cls of entry.rig ? ['Skel_Z', 'Skeleton', 'BVH'] : []) {
    const page = await api(`/api/resources?class=${cls}&limit=20`).catch(() => ({ resources: [] }));
    for (const s of page.resources) {
      if (s.id === entry.id || options.some((o) => o.value === String(s.id))) continue;
      options.push({ value: String(s.id), label: `${s.name || s.crc32} (${s.class}, entry ${s.id}): none of its targets, retargeted onto it` });
    }
  }
  options.push({ value: 'none', label: 'none' });
  // an entry no skeleton fits is not posed on an unrelated one: the view waits for a choice
  const fits = entry.rig || ranked.skeletons.some((s) => s.matched > 0);
  let chosen = restore.skeleton || (fits ? options[0].value : 'none');
  if (!options.some((o) => o.value === chosen)) {
    options.splice(options.length - 1, 0, { value: chosen, label: `entry ${chosen}` });
  }
  const select = $('#skeleton-choice');
  select.replaceChildren(...options.map((o) => make('option', { value: o.value, text: o.label })));
  select.value = chosen;
  // another skeleton keeps the time shown (the frame a user was looking at)
  select.onchange = () => {
    const view = state.motion.view;
    state.motion.map = null; /* a map is of two rigs */
    chooseSkeleton(entry, select.value, ranked, { t: view.entry ? view.time : state.time });
  };
  state.motion.retarget = restore.retarget === '1';
  state.motion.map = restore.map ? Number(restore.map) : null;
  $('#retarget').onchange = () => {
    const view = state.motion.view;
    state.motion.retarget = $('#retarget').checked;
    chooseSkeleton(entry, select.value, ranked, { t: view.entry ? view.time : state.time });
  };
  visible(true);
  await chooseSkeleton(entry, chosen, ranked, restore);
  await listClips(entry);
}

// The other animations of the same upload (a glTF file's clips): one switches to another in
// the view, keeping its time, camera and chosen bone (with that bone's tracks charted).
export async function listClips(entry) {
  const box = $('#clip-box'), select = $('#clip-choice');
  box.hidden = true;
  if (!entry.filename) return;
  const page = await api(`/api/resources?q=${encodeURIComponent(entry.filename)}&limit=200`).catch(() => ({ resources: [] }));
  const clips = page.resources.filter((r) => r.sha256 === entry.sha256).sort((a, b) => a.part - b.part);
  if (clips.length < 2) return;
  select.replaceChildren(...clips.map((c) => make('option', { value: String(c.id), text: `${c.name || c.crc32} (entry ${c.id})` })));
  select.value = String(entry.id);
  select.onchange = () => {
    const view = state.motion.view;
    openEntry(Number(select.value), null, state.window, {
      skeleton: state.motion.skeleton === '' ? 'own' : state.motion.skeleton, t: view.time, cam: view.cameraText(),
      grid: view.grid ? view.gridText() : null,
    });
  };
  box.hidden = false;
}

export async function chooseSkeleton(entry, value, ranked, restore) {
  const view = state.motion.view;
  const coverage = $('#coverage');
  const box = ['#view-box', '#timeline', '#timeline-keys', '#playback', '#joints-box', '#view-mode-box', '#frame-all'];
  view.pause();
  state.motion.skeleton = value === 'own' ? '' : value === 'none' ? 'none' : value;
  offerRetarget(entry, value);
  if (value === 'none' || (value === 'own' && !entry.rig)) {
    for (const b of box) $(b).hidden = true;
    text(coverage, '');
    view.entry = null;
    renderBones();
    motionMessage(entry.rig || ranked.skeletons.some((s) => s.matched > 0) ? 'No rig chosen: the view is off.'
      : 'No skeleton in the catalogue has this entry\'s targets, and it has no rig of its own: upload its skeleton (a Skel_Z, or a glTF with the nodes) to see it move.');
    view.entry = null;
    writeUrl();
    return;
  }
  for (const b of box) $(b).hidden = false;
  // an entry with nothing that moves over time (a rig at rest, a track of one key) is shown at
  // rest, with no timeline or Play
  const still = !(entry.tracks || []).some((t) => t.time_range && t.time_range[1] > t.time_range[0]);
  for (const b of ['#timeline', '#timeline-keys', '#playback']) $(b).hidden = still;
  motionMessage('');
  if (restore.speed) { view.speed = Number(restore.speed) || 1; $('#speed').value = String(view.speed); }
  try {
    await view.show(entry, {
      skeleton: value === 'own' ? null : Number(value),
      time: restore.t !== undefined && restore.t !== null ? Number(restore.t) : (state.window || trackRange())[0],
      camera: restore.cam,
      grid: restore.grid,
    });
  } catch (e) {
    motionMessage(`The pose could not be made: ${e.message}`);
    return;
  }
  const answer = view.answer;
  const moved = new Set(answer.tracks.filter((t) => t.node !== null).map((t) => t.node)).size;
  if (value === 'own') {
    text(coverage, `its own rig: ${answer.nodes.length} nodes, ${moved} moved by its tracks`);
    if (!moved && (entry.tracks || []).length) {
      motionMessage(`Its ${count(entry.tracks.length, 'track moves', 'tracks move')} no node of its rig`
        + (entry.family === 'burnout' ? ' (a Vehicle Animation\'s state animations move the parts their states name, and these name none the rig has)' : '')
        + ': it is drawn at rest.');
    }
  } else if (answer.retarget) {
    text(coverage, `retargeted: ${answer.retarget.map.count} bones paired, ${moved} of ${answer.nodes.length} nodes moved`);
  } else {
    const s = ranked.skeletons.find((k) => String(k.id) === value);
    const targets = ranked.targets;
    text(coverage, `${s ? s.matched : moved} of ${targets} ${entry.family === 'zouna' ? 'bones' : 'targets'} (${answer.nodes.length} nodes)`);
    if (!moved) motionMessage(`This skeleton has none of the animation's ${entry.family === 'zouna' ? 'bones' : 'targets'}: it is drawn at rest.`
      + (entry.rig ? ' Tick "retargeted" to put its motion on this skeleton\'s bones.' : ''));
  }
  coverage.dataset.matched = String(moved);
  await showRetarget(entry, value, () => chooseSkeleton(entry, value, ranked, { t: view.time }));
  renderBones();
  // the bone chosen before (in another clip, on another skeleton) stays chosen where this rig has
  // it; its tracks charted when nothing else was asked for
  if (view.selected >= 0) {
    markBone(view.selected);
    const tracks = view.tracksOf.get(view.selected) || [];
    if (restore.boneTracks && tracks.length && tracks.join() !== state.selected.join()) selectTracks(tracks);
  }
  if (state.compare) await view.setGhost(state.compare.id);
  state.time = view.time;
  drawCursor();
  writeUrl();
}

// The source's frame rate, where its keys show one: the first of the usual rates (24, 25, 30,
// 48, 50, 60, 100, 120, 240 a second) on whose frames every charted key sits; null when the keys
// say nothing (none, or all on whole quarter seconds, which every rate has).
export function keysFrameRate(keyTimes) {
  const times = [...keyTimes.values()].filter(Boolean).flat();
  const on = (f) => times.every((t) => Math.abs(t * f - Math.round(t * f)) < 1e-3);
  if (!times.length || on(4)) return null;
  return [24, 25, 30, 48, 50, 60, 100, 120, 240].find(on) ?? null;
}

// The view's frames (a step, the timeline's frame ticks) at the entry's own rate, unless the
// user chose one; 30 a second when its keys show none.
export function adoptFrameRate() {
  const view = state.motion && state.motion.view;
  if (!view || view.fpsChosen) return;
  const rate = keysFrameRate(state.keyTimes);
  view.fps = rate || 30;
  $('#fps').value = String(view.fps);
  view.updatePlayback();
  text($('#fps-source'), rate ? "the keys' rate" : '');
  if (state.motion.timeline) state.motion.timeline.draw();
}
