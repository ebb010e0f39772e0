// entry.js: an open entry: its summary, its tracks grouped by bone, its other versions, its
// downloads.

import { api, download } from '/api.js';
import { markBone } from '/bones.js';
import { loadHealth, loadCatalogue } from '/catalogue.js';
import { drawChart, forgetAnswers } from '/chart.js';
import { startCompare, renderCompare } from '/compare.js';
import { $, text, make } from '/dom.js';
import { live } from '/live.js';
import { adoptFrameRate, motionView, showMotion } from '/motion.js';
import { renderKeyEditor } from '/keys.js';
import { renderNative } from '/native.js';
import { state, writeUrl } from '/state.js';
import { begin, publish } from '/status.js';
import { boneName, count, bytes, handleText, kindOf, readable, seconds, trackTitle, utc } from '/words.js';

// Entry `id` opened: `selected` the tracks to chart (else its first), `window` the chart's [from,
// to] (else the whole track, or the tracks of the bone chosen before when this entry moves it),
// `restore` what a link or a reload keeps (skeleton, t, speed, cam, grid, compare).
export async function openEntry(id, selected = null, window = null, restore = {}) {
  const end = begin();
  publish('entry', '');
  try {
    await showEntry(id, selected, window, restore);
  } finally { end(); }
}

async function showEntry(id, selected, window, restore) {
  let entry;
  try { entry = await api(`/api/resources/${id}`); } catch (e) {
    text($('#catalogue-error'), `entry ${id}: ${e.message}`);
    $('#catalogue-error').hidden = false;
    return;
  }
  if (state.motion && state.motion.view) state.motion.view.pause();
  forgetAnswers(); // what it was may have changed (a redecode, a name list)
  if (!state.entry || state.entry.id !== entry.id) state.hiddenCurves = new Set();
  $('#chart').dataset.hiddenCurves = [...state.hiddenCurves].join(' ');
  state.entry = entry;
  state.time = null;
  motionView(); // three.js and the view load while the chart is drawn

  if (live.fresh.delete(entry.id)) { // opened: seen
    const row = document.querySelector(`#catalogue tbody tr[data-id="${entry.id}"]`);
    if (row) row.classList.remove('new');
  }
  $('#entry-gone').hidden = true;
  $('#entry-redecoded').hidden = true;
  const tracks = entry.tracks || [];
  state.selected = (selected || [0]).filter((n) => n < tracks.length);
  state.window = window;
  const section = $('#entry');
  section.hidden = false;
  delete section.dataset.opened;
  // an entry opened from the list lands at its top (the view, the timeline and the chart) at
  // once; a link to a view, on the view once it shows
  if (!restore.cam) section.scrollIntoView({ block: 'start' });
  const readoutElement = $('#readout');
  delete readoutElement.dataset.t;
  delete readoutElement.dataset.values;
  text(readoutElement, 'Move the pointer over the chart to read exact values.');
  text($('#entry-title'), `${kindOf(entry)} ${entry.name || entry.crc32}`);
  const summary = [
    ['Handle', `${handleText(entry)} (from ${entry.crc32_source})`], ['Family', entry.family],
    ['File', `${entry.filename || ''} (${bytes(entry.size)})`], ['Duration', entry.duration === null ? '' : seconds(entry.duration)],
    ['Uploaded', `${utc(entry.uploaded_at)}${entry.uploaded_by ? ` by ${entry.uploaded_by}` : ''}`], ['Note', entry.note || ''],
    ['SHA-256', entry.sha256],
  ];
  $('#entry-summary').replaceChildren(...summary.filter(([, v]) => v).flatMap(([k, v]) => [make('dt', { text: k }), make('dd', { text: v })]));
  $('#raw-link').href = `/api/resources/${id}/raw`;
  $('#gltf-link').href = `/api/resources/${id}/export`;
  const assumed = $('#assumed');
  assumed.hidden = !entry.assumed.length;
  text(assumed, entry.assumed.length ? `Assumed: ${entry.assumed.join(' · ')}` : '');
  text($('#structure'), JSON.stringify(entry.structure, null, 2));
  renderTrackRules(tracks);
  $('#tracks tbody').replaceChildren(...groupedByBone(tracks).flatMap(([bone, group]) => [
    ...(bone === null ? [] : [make('tr', { class: 'group' }, [make('th', { colspan: '7', scope: 'rowgroup', text: `${bone} · ${count(group.length, 'track', 'tracks')}` })])]),
    ...group.map(trackRow)]));
  // a skeleton has a tree and no curves: its bones instead of an empty chart
  $('#chart-part').hidden = !tracks.length;
  renderVersions(entry);
  renderNative(entry);
  state.compare = null;
  if (restore.compare) await startCompare(Number(restore.compare)); else renderCompare();
  writeUrl();
  await drawChart();
  await renderKeyEditor(entry);
  // no tracks asked for: the bone chosen before, if this entry moves it, gives the tracks charted
  await showMotion(entry, { ...restore, boneTracks: selected === null });
  adoptFrameRate();
  const viewBox = $('#view-box');
  if (restore.cam) (viewBox.hidden ? section : viewBox).scrollIntoView({ block: viewBox.hidden ? 'start' : 'center' });
  section.dataset.opened = String(entry.id); // all of it shown (for a reader of the DOM)
  publish('entry', entry.id);
}

// The tracks in groups of the bone (the target) they move, in the order the bones first come;
// [[null, tracks]] when they all move one target or none (no heading needed).
export function groupedByBone(tracks) {
  const groups = new Map();
  for (const t of tracks) {
    const target = t.target || {};
    const label = boneName(target) || (target.object !== undefined ? `object ${target.object}` : '');
    const key = `${target.schema || ''} ${target.object} ${label}`;
    if (!groups.has(key)) groups.set(key, [label || 'no target', []]);
    groups.get(key)[1].push(t);
  }
  return groups.size > 1 ? [...groups.values()] : [[null, tracks]];
}

// One track's row: its chart box, number, name, type, interpolation, keys and time range.
export function trackRow(t) {
  const box = make('input', { type: 'checkbox', 'aria-label': `chart track ${t.n}` });
  box.checked = state.selected.includes(t.n);
  box.addEventListener('change', () => {
    state.selected = box.checked ? [...state.selected, t.n].sort((a, b) => a - b) : state.selected.filter((n) => n !== t.n);
    const view = state.motion && state.motion.view;
    if (box.checked && view && view.entry) { // its bone chosen, in the view and the list
      const i = view.nodeOfTrack(t.n);
      if (i >= 0) { view.select(i); markBone(i); }
    }
    drawChart();
  });
  return make('tr', { 'data-n': String(t.n) }, [make('td', {}, [box]), make('td', { text: String(t.n) }), make('td', { text: trackTitle(t) }),
      make('td', { text: t.kind === 'events' ? 'events' : `${t.type}${t.array_size > 1 ? `[${t.array_size}]` : ''}` }),
      make('td', {}, [`${t.interpolation}${t.semantic === 'NORMALIZED_QUATERNION' ? ' (quaternion)' : ''}`,
        ...ruleMarks(t)]),
      make('td', { text: String(t.key_count) }), make('td', { text: `${readable(t.time_range[0], 3)} – ${seconds(t.time_range[1])}`, title: `${t.time_range[0]} – ${t.time_range[1]} s` })]);
}

// The rules a track's curve follows beyond its interpolation's name (the engine's, where the
// name does not say it), said once under the tracks for the tracks they hold for: numbered
// marks in the rows of those tracks when they are not all of them.
const TRACK_RULES = [
  { holds: (t) => t.before_first_key === "last key's value", says: 'holds its last key\'s value before its first key, as the engine has it' },
  { holds: (t) => Boolean(t.w_between_keys), says: 'has w = 1 between keys (the engine interpolates x, y and z)' },
];
let rulesShown = []; // the rules under the table now, with the tracks each holds for

function ruleMarks(t) {
  return rulesShown.filter((r) => !r.all && r.tracks.includes(t.n))
    .map((r) => make('sup', { class: 'rule-mark', text: String(r.mark), title: `this track ${r.says}` }));
}

// The rules of `tracks`, worked out before their rows are made, and written under the table.
function renderTrackRules(tracks) {
  rulesShown = TRACK_RULES.map((r) => ({ ...r, tracks: tracks.filter(r.holds).map((t) => t.n) }))
    .filter((r) => r.tracks.length)
    .map((r, i) => ({ ...r, mark: i + 1, all: r.tracks.length === tracks.length }));
  const lines = rulesShown.map((r) => {
    const who = r.all ? (tracks.length === 1 ? 'The track' : 'Every track')
      : `${r.mark}. ${r.tracks.length === 1 ? `Track ${r.tracks[0]}` : `Tracks ${r.tracks.join(', ')}`}`;
    return `${who} ${r.says}.`;
  });
  const box = $('#tracks-rules');
  box.hidden = !lines.length;
  text(box, lines.join(' '));
}

// Versions (the other entries of this handle and class) and comparing with another entry.

export function renderVersions(entry) {
  const versions = entry.versions || [];
  $('#versions-box').hidden = !versions.length;
  $('#versions tbody').replaceChildren(...versions.map((v) => {
    const link = make('a', { href: `?id=${v.id}`, text: `${v.id}${v.name ? ` ${v.name}` : ''}` });
    link.addEventListener('click', (event) => { event.preventDefault(); openEntry(v.id); });
    const compare = make('button', { type: 'button', text: 'Compare', 'data-compare': String(v.id) });
    compare.addEventListener('click', () => startCompare(v.id).then(drawChart));
    return make('tr', {}, [make('td', {}, [link]), make('td', { text: utc(v.uploaded_at) }),
      make('td', { text: v.uploaded_by || '' }), make('td', { text: v.filename || '' }),
      make('td', { text: String(v.decoder_version) }), make('td', { text: v.note || '' }), make('td', {}, [compare])]);
  }));
}

// The tracks charted: their boxes ticked in the table, the chart drawn again.
export function selectTracks(tracks) {
  if (!tracks.length) return;
  state.selected = [...tracks];
  for (const box of document.querySelectorAll('#tracks tbody input')) {
    box.checked = state.selected.includes(Number(box.closest('tr').dataset.n));
  }
  drawChart();
}

export function setUpEntry() {
  $('#raw-link').addEventListener('click', download);
  $('#csv-link').addEventListener('click', download);
  $('#gltf-link').addEventListener('click', download);
  $('#gltf-bare-link').addEventListener('click', download);
  $('#export-link').addEventListener('click', download);
  $('#delete-entry').addEventListener('click', async () => {
    if (!state.entry || !confirm(`Delete entry ${state.entry.id}?`)) return;
    await api(`/api/resources/${state.entry.id}`, { method: 'DELETE' });
    state.entry = null;
    $('#entry').hidden = true;
    writeUrl();
    loadCatalogue();
    loadHealth();
  });
}
