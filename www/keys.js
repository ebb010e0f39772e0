// keys.js: an entry's keys edited on the page and saved as a new version of it
// (POST /api/resources/{id}/edits): a key's time and value typed (rotations as the Euler degrees
// the chart shows), a key inserted at the view's time, a key deleted, undo and redo; "Save as a
// new version" stores the edited entry and opens it. The editor publishes its state on
// #key-editor for a reader of the DOM: data-track (the track shown), data-edits (the edits
// pending), data-chosen (the key last chosen on the chart, "track:key"), data-saving, data-saved
// (the entry made last), data-selected (the keys chosen, "1,3") and data-error. A key's marker
// pressed on the chart chooses that key (shift-click adds or takes one out, a shift-drag's box
// the keys in it); dragged, it moves the chosen keys in time (snapped to frames, by default)
// and value.

import { api } from '/api.js';
import { eulerDegrees, isRotation } from '/chart.js';
import { $, text, make } from '/dom.js';
import { state } from '/state.js';
import { during } from '/status.js';
import { readable, trackTitle } from '/words.js';

// The families whose edits animdex saves (answers/edit_answer.c).
const editable = (entry) => ['zouna', 'radient', 'gltf'].includes(entry.family) && entry.class !== 'Skel_Z';

const editor = {
  entry: null,
  track: null, // the track shown: its n
  keys: null, // its keys as stored (GET .../keys)
  edits: [], // the document to send: {track, key, time?, value?|degrees?} | {track, insert, value?} | {track, delete}
  undone: [], // edits taken back, for redo
  history: [], // earlier documents, for undo
  selected: new Set(), // the keys of the track shown chosen on the chart (click, shift-click, box)
};

// The keys chosen on `track` (drawn larger on the chart).
export const selectedKeys = (track) => (editor.entry === state.entry && editor.track === track ? editor.selected : new Set());

function select(keys) {
  editor.selected = new Set(keys);
  publish('selected', [...editor.selected].sort((a, b) => a - b).join(','));
  for (const r of document.querySelectorAll('#edit-keys tr[data-key]')) r.classList.toggle('selected', editor.selected.has(Number(r.dataset.key)));
  $('#chart').dispatchEvent(new Event('keysedited'));
}

const publish = (name, value) => {
  const box = $('#key-editor');
  if (value === null) delete box.dataset[name]; else box.dataset[name] = String(value);
};

// The components a key shows: Euler degrees for a rotation while the chart shows them so.
const shownValue = (t, value) => (state.euler && isRotation(t) ? eulerDegrees(value) : [value].flat().map(Number));

// What a key is after the edits so far: its time and shown value, or null when deleted.
function keyNow(k) {
  const t = state.entry.tracks[editor.track];
  const edit = editor.edits.find((e) => e.track === editor.track && (e.key === k || e.delete === k));
  const time = editor.keys.times[k], value = shownValue(t, editor.keys.values[k]);
  if (!edit) return { time, value, edited: false };
  if (edit.delete === k) return null;
  return { time: edit.time ?? time, value: edit.degrees || edit.value || value, edited: true };
}

// The edits become `next` (undoable); the same edits again change nothing (a field left as it
// was draws nothing again, so that a button pressed as the field loses focus stays in place).
function change(next) {
  if (JSON.stringify(next) === JSON.stringify(editor.edits)) return;
  editor.history.push(editor.edits);
  editor.edits = next;
  editor.undone = [];
  render();
}

// Where key k of `track` is drawn once the edits so far are made: {time, value} (the value as
// shown, all its components), null when deleted, or `stored` when no edit moves it (the chart
// draws its markers so).
export function editedKey(track, k, stored) {
  if (!editor.entry || editor.entry !== state.entry) return stored;
  const edit = editor.edits.find((e) => e.track === track && (e.key === k || e.delete === k));
  if (!edit) return stored;
  if (edit.delete === k) return null;
  // a value edited in the other unit (degrees while the chart shows quaternions) keeps the
  // stored one's place on the value axis
  const inDegrees = state.euler && isRotation(state.entry.tracks[track]);
  const value = (inDegrees ? edit.degrees : edit.value) || stored.value;
  return { time: edit.time ?? stored.time, value };
}

// Key k given a time and/or a value (the components as shown).
function setKey(k, time, value) {
  change(keyEdits(editor.edits, k, time, value));
}

// `edits` with key k of the track shown at `time` and `value` (no edit when that is as stored).
function keyEdits(edits, k, time, value) {
  const t = state.entry.tracks[editor.track];
  const others = edits.filter((e) => !(e.track === editor.track && e.key === k));
  const edit = { track: editor.track, key: k };
  if (time !== editor.keys.times[k]) edit.time = time;
  const stored = shownValue(t, editor.keys.values[k]);
  if (value.some((v, i) => v !== stored[i])) edit[state.euler && isRotation(t) ? 'degrees' : 'value'] = value;
  return edit.time === undefined && !edit.value && !edit.degrees ? others : [...others, edit];
}

function row(k, now) {
  const t = state.entry.tracks[editor.track];
  const time = make('input', { type: 'number', step: 'any', value: String(now.time), 'aria-label': `key ${k} time`, 'data-key': String(k), class: 'key-time' });
  const value = make('input', { type: 'text', value: now.value.map((v) => readable(v)).join(', '), 'aria-label': `key ${k} value`, 'data-key': String(k), class: 'key-value' });
  value.title = now.value.join(', ');
  const commit = () => {
    const parts = value.value.split(',').map((s) => Number(s.trim()));
    const width = shownValue(t, editor.keys.values[k]).length;
    if (parts.length !== width || parts.some((v) => !Number.isFinite(v)) || !Number.isFinite(Number(time.value))) {
      publish('error', `key ${k}: give a time and ${width} number${width === 1 ? '' : 's'}`);
      text($('#edit-result'), `Key ${k}: give a time and ${width} number${width === 1 ? '' : 's'} separated by commas.`);
      return;
    }
    // unchanged text keeps the exact stored value (the box shows it rounded)
    const shown = now.value.map((v) => readable(v)).join(', ');
    setKey(k, Number(time.value), value.value === shown ? now.value : parts);
  };
  time.addEventListener('change', commit);
  value.addEventListener('change', commit);
  const remove = make('button', { type: 'button', text: 'Delete', 'data-delete': String(k) });
  remove.addEventListener('click', () => change([...editor.edits.filter((e) => !(e.track === editor.track && e.key === k)), { track: editor.track, delete: k }]));
  return make('tr', { 'data-key': String(k), class: `${now.edited ? 'edited' : ''}${editor.selected.has(k) ? ' selected' : ''}`.trim() }, [
    make('td', { text: String(k) }), make('td', {}, [time]), make('td', {}, [value]), make('td', {}, [remove])]);
}

function insertedRow(edit) {
  const take = make('button', { type: 'button', text: 'Remove', 'data-uninsert': String(edit.insert) });
  take.addEventListener('click', () => change(editor.edits.filter((e) => e !== edit)));
  return make('tr', { class: 'edited inserted', 'data-insert': String(edit.insert) }, [
    make('td', { text: 'new' }), make('td', { text: readable(edit.insert) }),
    make('td', { text: 'the curve\'s value there' }), make('td', {}, [take])]);
}

function render() {
  const entry = state.entry;
  $('#chart').dispatchEvent(new Event('keysedited')); // its markers where the edits put them
  const t = entry && entry.tracks[editor.track];
  publish('edits', editor.edits.length);
  publish('track', t ? t.n : null);
  $('#edit-undo').disabled = !editor.history.length;
  $('#edit-redo').disabled = !editor.undone.length;
  $('#edit-save').disabled = !editor.edits.length;
  $('#edit-insert').disabled = !t;
  if (!t || !editor.keys) { $('#edit-keys tbody').replaceChildren(); return; }
  const rows = [];
  editor.keys.times.forEach((_, k) => { const now = keyNow(k); if (now) rows.push(row(k, now)); });
  rows.push(...editor.edits.filter((e) => e.track === editor.track && e.insert !== undefined).map(insertedRow));
  $('#edit-keys tbody').replaceChildren(...rows);
  text($('#edit-status'), editor.edits.length ? `${editor.edits.length} edit${editor.edits.length === 1 ? '' : 's'} not saved` : 'no edits');
}

// The track shown: its keys read (the first charted track by default).
async function showTrack(n) {
  const entry = state.entry;
  if (editor.track !== n) select([]);
  editor.track = n;
  editor.keys = null;
  render();
  const t = entry.tracks[n];
  if (!t || t.kind === 'events') return;
  const keys = await api(`/api/resources/${entry.id}/tracks/${n}/keys`);
  if (state.entry !== entry || editor.track !== n) return; // another was chosen meanwhile
  editor.keys = keys;
  render();
}

// An entry opened: the editor empty, shown where its edits can be saved.
export async function renderKeyEditor(entry) {
  const box = $('#key-editor');
  editor.entry = entry;
  editor.edits = [];
  editor.history = [];
  editor.undone = [];
  editor.selected = new Set();
  publish('selected', '');
  publish('error', null);
  text($('#edit-result'), '');
  const tracks = (entry.tracks || []).filter((t) => t.kind !== 'events');
  box.hidden = !editable(entry) || !tracks.length;
  if (box.hidden) return;
  $('#edit-track').replaceChildren(...tracks.map((t) => make('option', { value: String(t.n), text: `${t.n} ${trackTitle(t)}` })));
  const first = tracks.find((t) => state.selected.includes(t.n)) || tracks[0];
  $('#edit-track').value = String(first.n);
  await showTrack(first.n);
}

async function save() {
  const entry = state.entry;
  const body = { edits: editor.edits };
  const note = $('#edit-note').value.trim();
  if (note) body.note = note;
  publish('saving', 'true');
  publish('error', null);
  try {
    const answer = await during(() => api(`/api/resources/${entry.id}/edits`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }));
    const made = answer.resources[0];
    text($('#edit-result'), `${answer.resources[0].status === 'created' ? 'Saved as' : 'The same as'} entry ${made.id}: ${answer.note}`);
    publish('saved', made.id);
    const { openEntry } = await import('/entry.js');
    await openEntry(made.id, state.selected);
  } catch (e) {
    publish('error', e.message);
    text($('#edit-result'), `Not saved: ${e.message}`);
  } finally {
    publish('saving', 'false');
  }
}

// A key chosen on the chart (its marker pressed): the editor opened on it, its value field
// focused.
async function chooseKey({ track, key }) {
  const box = $('#key-editor');
  if (box.hidden) return;
  box.open = true;
  if (editor.track !== track) {
    $('#edit-track').value = String(track);
    await showTrack(track);
  }
  if (!editor.selected.has(key)) select([key]); // a press on a chosen key keeps the others (to drag them)
  for (const r of document.querySelectorAll('#edit-keys tr.chosen')) r.classList.remove('chosen');
  const row = document.querySelector(`#edit-keys tr[data-key="${key}"]`);
  if (!row) return; // deleted in the edits
  row.classList.add('chosen');
  row.scrollIntoView({ block: 'nearest' });
  // focused once the press that chose it is over (its default action takes the focus away)
  setTimeout(() => {
    row.querySelector('input.key-value').focus({ preventScroll: true });
    publish('chosen', `${track}:${key}`);
  }, 0);
}

// A key's marker dragged on the chart to `time` and, in component `component` of the value as
// shown, to `value`: that key moved (an edit, undoable), its other components as they were.
// The keys chosen with it move as much, in one edit (one undo); a key moved onto another's time
// is refused when saved, by the API, naming both.
async function moveKey({ track, key, component, time, value }) {
  if ($('#key-editor').hidden) return;
  if (editor.track !== track || !editor.keys) {
    $('#edit-track').value = String(track);
    await showTrack(track);
  }
  const now = keyNow(key);
  if (!now) return;
  const dt = Number(time.toFixed(6)) - now.time, dv = Number(value.toPrecision(7)) - now.value[component];
  const moving = editor.selected.has(key) ? [...editor.selected] : [key];
  let edits = editor.edits;
  for (const k of moving) {
    const at = keyNow(k);
    if (!at) continue;
    const next = [...at.value];
    next[component] = k === key ? Number(value.toPrecision(7)) : Number((at.value[component] + dv).toPrecision(7));
    edits = keyEdits(edits, k, k === key ? Number(time.toFixed(6)) : Number((at.time + dt).toFixed(6)), next);
  }
  change(edits);
  publish('chosen', `${track}:${key}`);
}

// Keys `keys` of the track shown added to the chosen ones (shift-click, a box), or taken out
// when they all are chosen already.
async function toggleKeys(track, keys) {
  if ($('#key-editor').hidden) return;
  $('#key-editor').open = true;
  if (editor.track !== track) {
    $('#edit-track').value = String(track);
    await showTrack(track);
  }
  const all = keys.every((k) => editor.selected.has(k));
  const next = new Set(editor.selected);
  for (const k of keys) if (all) next.delete(k); else next.add(k);
  select(next);
}

// Whether a dragged key lands on a frame (of the timeline's rate).
export const snapToFrames = () => $('#snap-frames').checked;

export function setUpKeyEditor() {
  $('#chart').addEventListener('keychosen', (event) => chooseKey(event.detail));
  $('#chart').addEventListener('keydragged', (event) => moveKey(event.detail));
  $('#chart').addEventListener('keystoggled', (event) => {
    if (event.detail.only) { if (editor.selected.size) select([]); } // a press where there is no key
    else toggleKeys(event.detail.track, event.detail.keys);
  });
  $('#edit-track').addEventListener('change', () => showTrack(Number($('#edit-track').value)));
  $('#edit-insert').addEventListener('click', () => {
    if (state.time === null) {
      text($('#edit-result'), 'Choose a time first: on the timeline, or by pressing on the chart.');
      return;
    }
    const at = Number(state.time.toFixed(6));
    if (editor.edits.some((e) => e.track === editor.track && e.insert === at)) return;
    change([...editor.edits, { track: editor.track, insert: at }]);
  });
  $('#edit-undo').addEventListener('click', () => {
    if (!editor.history.length) return;
    editor.undone.push(editor.edits);
    editor.edits = editor.history.pop();
    render();
  });
  $('#edit-redo').addEventListener('click', () => {
    if (!editor.undone.length) return;
    editor.history.push(editor.edits);
    editor.edits = editor.undone.pop();
    render();
  });
  $('#edit-save').addEventListener('click', save);
}
