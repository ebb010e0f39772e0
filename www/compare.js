// compare.js: comparing an entry with another (a version, or any entry): the differences per
// track, the other's curves on the chart, its ghost in the 3D view.

import { api } from '/api.js';
import { drawChart } from '/chart.js';
import { $, text, make } from '/dom.js';
import { state, writeUrl } from '/state.js';
import { count, readable, seconds } from '/words.js';

// The largest difference of a pair as text, and as a number to sort by.
export const largestOf = (pair) => (pair.largest ? Math.max(...pair.largest) : NaN);

export const differenceText = (pair) => {
  if (!pair) return 'only here';
  if (pair.reason) return pair.reason;
  if (pair.identical) return '0 (identical keys)';
  const i = pair.largest.indexOf(Math.max(...pair.largest));
  // an angle in degrees, as the rotations are shown; what rounds to 0 is said to be below it
  const angle = pair.compared_as.startsWith('angle');
  const v = angle ? (pair.largest[i] * 180) / Math.PI : pair.largest[i];
  const shown = v > 0 && readable(v) === '0' ? '< 0.0001' : readable(v);
  return `${shown}${angle ? '°' : ''} at ${seconds(pair.at[i])}`;
};

// The difference exactly, on hover.
export const differenceExact = (pair) => (pair && pair.largest
  ? pair.largest.map((v, i) => `${v}${pair.compared_as.startsWith('angle') ? ' rad' : ''} at ${pair.at[i]} s`).join('; ') : '');

export async function startCompare(id) {
  const entry = state.entry;
  try {
    const answer = await api(`/api/compare?a=${entry.id}&b=${id}`);
    state.compare = { id, answer, byTrack: new Map(answer.pairs.map((p) => [p.a, p])) };
    text($('#compare-status'), `with entry ${id}: ${answer.identical ? 'identical' : count(answer.pairs.length, 'pair of tracks', 'pairs of tracks')}`
      + `${answer.only_in_a.length ? `, ${answer.only_in_a.length} only here` : ''}${answer.only_in_b.length ? `, ${answer.only_in_b.length} only there` : ''}`);
  } catch (e) {
    state.compare = null;
    text($('#compare-status'), `compare with entry ${id}: ${e.message}`);
  }
  renderCompare();
  writeUrl();
  ghost();
}

// While comparing, the other entry plays in the 3D view as a grey ghost on the same rig.
export function ghost() {
  const view = state.motion && state.motion.view;
  if (view && view.entry && state.entry && view.entry.id === state.entry.id) view.setGhost(state.compare ? state.compare.id : null);
}

export function renderCompare() {
  const on = !!state.compare;
  $('#compare-clear').hidden = !on;
  if (!on && !$('#compare-status').textContent.startsWith('compare with')) text($('#compare-status'), '');
  for (const cell of document.querySelectorAll('.compare-column')) cell.hidden = !on;
  for (const row of document.querySelectorAll('#tracks tbody tr[data-n]')) {
    const n = Number(row.dataset.n);
    let cell = row.querySelector('.compare-column');
    if (!cell) { cell = make('td', { class: 'compare-column' }); row.append(cell); }
    cell.hidden = !on;
    const pair = on ? state.compare.byTrack.get(n) : null;
    text(cell, on ? differenceText(pair) : '');
    cell.title = on ? differenceExact(pair) : '';
    row.dataset.difference = on && pair && pair.largest ? String(largestOf(pair)) : '';
  }
}

export function setUpCompare() {
  $('#compare-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const id = Number($('#compare-id').value);
    if (state.entry && Number.isInteger(id) && id > 0) { await startCompare(id); drawChart(); }
  });
  $('#compare-clear').addEventListener('click', () => { state.compare = null; text($('#compare-status'), ''); renderCompare(); writeUrl(); ghost(); drawChart(); });
  $('#sort-difference').addEventListener('click', () => {
    const body = $('#tracks tbody');
    // one list by difference: the bones' headings go
    const rows = [...body.querySelectorAll('tr[data-n]')].sort((x, y) => (Number(y.dataset.difference) || -1) - (Number(x.dataset.difference) || -1));
    body.replaceChildren(...rows);
    $('#sort-difference').setAttribute('aria-sort', 'descending');
  });
}
