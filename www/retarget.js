// retarget.js: "On another skeleton": the open clip retargeted onto the skeleton the view shows
// (GET .../retarget and pose?retarget=1): the bone map used, its pairs changed and saved as a
// BoneMap entry of the catalogue (the view then uses it), what the retarget is worth, and
// "Download as glTF" and "Download for the game" giving the retargeted clip ("Download as glTF"
// gives the entry on the skeleton the view shows in any case).
// The panel publishes its state on #retarget-panel: data-done 'shown', 'saved' or 'refused'.

import { api } from '/api.js';
import { $, text, make } from '/dom.js';
import { renderNative, showNativeReport } from '/native.js';
import { onReduceChange, reduceQuery, showReduceReport } from '/reduce.js';
import { state } from '/state.js';
import { during } from '/status.js';

const retargeted = () => {
  const m = state.motion;
  return !!(m && m.retarget && m.skeleton && m.skeleton !== 'none');
};

// The pose query's part for the view (view3d.js asks it of every pose of its rig).
export function retargetQuery() {
  return retargeted() ? `&retarget=1${state.motion.map ? `&map=${state.motion.map}` : ''}` : '';
}

let shownRetargeted = false; // the links and the game's box are the retarget's
let relink = null; // the open entry's links, made again when "Fewer keys" changes
onReduceChange(() => relink && relink());

const ontoQuery = () => `onto=${state.motion.skeleton}${state.motion.map ? `&map=${state.motion.map}` : ''}`;

// The "retargeted" box: offered for a skeleton other than the clip's own rig, when the clip has a
// rig of its own to retarget from.
export function offerRetarget(entry, value) {
  const offered = !!entry.rig && value !== 'own' && value !== 'none';
  $('#retarget-box').hidden = !offered;
  $('#retarget').checked = offered && !!state.motion.retarget;
  if (!offered) state.motion.retarget = false;
}

const figure = (v) => (v === null || v === undefined ? 'none' : v < 1e-4 ? v.toExponential(1) : v.toPrecision(2));

// The panel, once the view shows the clip (reshow: the view made again, after a map is saved).
export async function showRetarget(entry, value, reshow) {
  const panel = $('#retarget-panel');
  // "Download as glTF" gives what the view shows: the clip retargeted, or on the skeleton chosen
  // (export?skeleton=, said so, the bare export beside it), or on its own rig
  const links = () => {
    const gltf = $('#gltf-link'), bare = $('#gltf-bare-link');
    const onSkeleton = value !== 'own' && value !== 'none';
    bare.href = `/api/resources/${entry.id}/export`;
    bare.hidden = !onSkeleton;
    const reduce = reduceQuery();
    const exported = onSkeleton ? `/api/resources/${entry.id}/export?skeleton=${value}` : bare.href;
    gltf.href = retargeted() ? `/api/resources/${entry.id}/retarget?${ontoQuery()}&format=glb`
      : reduce ? `${exported}${onSkeleton ? '&' : '?'}${reduce}` : exported;
    text(gltf, retargeted() ? `Download as glTF (retargeted onto entry ${value})`
      : onSkeleton ? `Download as glTF (on entry ${value}'s skeleton)` : 'Download as glTF');
    showReduceReport(retargeted() ? null : gltf.getAttribute('href'));
  };
  relink = () => {
    if (state.entry !== entry) return;
    links();
    if (!retargeted()) showNativeReport();
  };
  panel.hidden = !retargeted();
  links();
  if (!retargeted()) {
    if (shownRetargeted) renderNative(entry); /* the entry's own again */
    shownRetargeted = false;
    return;
  }
  shownRetargeted = true;
  panel.removeAttribute('data-done');
  text($('#retarget-saved'), '');
  let report;
  try {
    report = await during(() => api(`/api/resources/${entry.id}/retarget?${ontoQuery()}&summary=1`));
  } catch (e) {
    text($('#retarget-report'), `cannot be retargeted: ${e.message}`);
    panel.dataset.done = 'refused';
    return;
  }
  if (state.entry !== entry || String(state.motion.skeleton) !== String(value)) return;
  const q = report.quality;
  text($('#retarget-report'), `${report.map.count} bones paired${report.map.map ? ` by bone map ${report.map.map}` : ''}, `
    + `${report.map.unmapped.to.length} of the skeleton's at rest; ${report.keys.rewritten} keys rewritten, ${report.keys.baked} baked; `
    + `back onto its own rig ${figure(q.cycle)} of its height off, hands, feet and head ${figure(q.effectors)}; `
    + `hips' travel x${report.root_motion.scale.toPrecision(3)}`);
  renderMap(entry, report);
  $('#retarget-save').onclick = () => saveMap(entry, value, report, reshow);
  nativeLinks(entry);
  panel.dataset.map = String(report.map.count);
  panel.dataset.done = 'shown';
}

// One row a bone of the skeleton: which of the clip's bones it moves as (none: at rest), and how
// the pair was found; changed here, saved as a map.
function renderMap(entry, report) {
  const source = entry.rig.map((n) => n.name || n.handle_name || `node ${n.source}`);
  const paired = new Map(report.map.pairs.map((p) => [p.to.source, p]));
  const bones = [...report.map.pairs.map((p) => p.to), ...report.map.unmapped.to].sort((a, b) => a.source - b.source);
  $('#retarget-map tbody').replaceChildren(...bones.map((bone) => {
    const pair = paired.get(bone.source);
    const choice = make('select', { 'aria-label': `the clip's bone ${bone.name} moves as`, 'data-bone': bone.name });
    choice.replaceChildren(make('option', { value: '', text: '(none: at rest)' }),
      ...source.map((name) => make('option', { value: name, text: name })));
    choice.value = pair ? pair.from.name : '';
    choice.onchange = () => { choice.closest('tr').dataset.changed = 'true'; };
    return make('tr', { 'data-source': String(bone.source) }, [make('th', { scope: 'row', text: bone.name }),
      make('td', {}, [choice]), make('td', { text: pair ? `${pair.how} (${pair.confidence})` : '' })]);
  }));
}

// The pairs the table shows, as a bone map document, uploaded: the view then retargets by it.
async function saveMap(entry, value, report, reshow) {
  const panel = $('#retarget-panel');
  const pairs = [...document.querySelectorAll('#retarget-map select')].filter((s) => s.value)
    .map((s) => ({ from: s.value, to: s.dataset.bone }));
  const onto = (state.motion.skeletonName || `entry ${value}`);
  const doc = { bone_map: { name: `${entry.name || `entry ${entry.id}`} onto ${onto}`, from: entry.name || `entry ${entry.id}`, to: onto, pairs } };
  const form = new FormData();
  form.append('file', new Blob([JSON.stringify(doc)], { type: 'application/json' }), 'bone_map.json');
  panel.removeAttribute('data-done');
  try {
    const answer = await during(() => api('/api/resources', { method: 'POST', body: form }));
    state.motion.map = answer.resources[0].id;
  } catch (e) {
    text($('#retarget-saved'), `not saved: ${e.message}`);
    panel.dataset.done = 'refused';
    return;
  }
  await reshow();
  text($('#retarget-saved'), `saved as bone map ${state.motion.map}, ${pairs.length} pairs; the view uses it`);
  panel.dataset.done = 'saved';
}

// "Download for the game", retargeted: into an Animation_Z of the catalogue (the skeleton's
// game's), or one made new.
async function nativeLinks(entry) {
  const page = await api('/api/resources?class=Animation_Z&limit=20').catch(() => ({ resources: [] }));
  if (state.entry !== entry || !retargeted()) return;
  const select = $('#native-template');
  select.replaceChildren(...page.resources.map((r) => make('option', { value: String(r.id), text: `entry ${r.id} ${r.name || r.crc32} (Animation_Z)` })),
    make('option', { value: 'new', text: 'an Animation_Z made new' }));
  const link = () => {
    const into = select.value === 'new' ? 'as=Animation_Z' : `template=${select.value}`;
    $('#native-link').href = `/api/resources/${entry.id}/retarget?${ontoQuery()}&format=native&${into}&reduce=0.001`;
    text($('#native-report'), 'the retargeted clip, its keys reduced within 0.001');
  };
  select.onchange = link;
  link();
  $('#native-box').hidden = false;
}
