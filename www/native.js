// native.js: "Download for the game": an entry written back as the game's own bytes.

import { api } from '/api.js';
import { $, text, make } from '/dom.js';
import { state } from '/state.js';
import { errorWords, reduceQuery } from '/reduce.js';
import { count, bytes } from '/words.js';

// "Download for the game": the entry as the game's own bytes (GET .../native), laid out like a
// file of the game's: the one an animdex export came from (the .glb brought back from
// Blender), a Zouna version of the same handle, or the entry itself. The report says what was
// kept byte for byte and what was written.
// The game's own bytes of a kind animdex writes back (a Burnout resource read out of a bundle
// comes back as its whole bundle, rebuilt).
export const writtenBack = (cls) => /_Z$/.test(cls || '')
  || cls === 'VehicleAnimation' || cls === 'BodyPartRemapData' || cls === 'RadientAnimationClip';

export const gameFile = (e) => ['zouna', 'burnout', 'radient'].includes(e.family) && writtenBack(e.class);

export function nativeTemplates(entry) {
  const found = [];
  const add = (id, label) => { if (!found.some((t) => t.id === id)) found.push({ id, label }); };
  const source = (((entry.structure || {}).metadata || {}).asset || {}).extras;
  const exported = source && source.animdex && source.animdex.entry;
  if (exported && typeof exported === 'number' && writtenBack(source.animdex.class)) {
    add(exported, `entry ${exported}, the ${source.animdex.class} this was exported from`);
  }
  if (gameFile(entry)) add(entry.id, 'this file itself');
  for (const v of entry.versions || []) if (gameFile(entry)) add(v.id, `version ${v.id}${v.name ? ` ${v.name}` : ''}`);
  return found;
}

// The skeleton the view shows an entry without a rig of its own on: what its error is measured on.
const skeletonShown = (entry) => {
  const chosen = $('#skeleton-choice') && $('#skeleton-choice').value;
  return !entry.rig && /^\d+$/.test(chosen || '') ? `&skeleton=${chosen}` : '';
};

let asked = 0; // the newest report asked for writes; an older answer is dropped

export async function showNativeReport() {
  const entry = state.entry;
  const select = $('#native-template');
  const report = $('#native-report');
  if (!entry || !select.value || $('#native-box').hidden) return;
  const reduce = reduceQuery();
  const query = `template=${select.value}${reduce ? `&${reduce}` : ''}${skeletonShown(entry)}`;
  const mine = ++asked;
  $('#native-link').href = `/api/resources/${entry.id}/native?${query}`;
  report.removeAttribute('data-done');
  text(report, 'checking…');
  try {
    const answer = await api(`/api/resources/${entry.id}/native?${query}&summary=1`);
    if (state.entry !== entry || mine !== asked) return;
    const kept = answer.tracks.filter((t) => t.kept).length;
    const largest = Math.max(0, ...answer.tracks.map((t) => t.largest_difference || 0));
    text(report, `${answer.file_name}, ${bytes(answer.length)}: ${count(kept, 'track', 'tracks')} kept byte for byte, `
      + `${count(answer.tracks.length - kept, 'track', 'tracks')} written`
      + (answer.kept_from_template.length ? `, ${count(answer.kept_from_template.length, 'track', 'tracks')} taken from the game file` : '')
      + (largest ? `; largest difference ${largest.toPrecision(3)}` : '')
      + (answer.bundle ? `; the whole bundle rebuilt around resource ${answer.bundle.resource_id}`
        + (answer.bundle.moved ? ` (the blocks after it moved ${bytes(Math.abs(answer.bundle.moved))})` : ', nothing else moved') : '')
      + (answer.reduction ? `; ${answer.reduction.keys.before.toLocaleString('en')} keys → ${answer.reduction.keys.after.toLocaleString('en')}` : '')
      + (answer.object_error ? `; ${errorWords(answer.object_error)}` : ''));
    report.dataset.done = 'ok';
  } catch (e) {
    if (state.entry !== entry || mine !== asked) return;
    text(report, `cannot be written for the game: ${e.message}`);
    report.dataset.done = 'refused';
  }
}

export function renderNative(entry) {
  const templates = nativeTemplates(entry);
  $('#native-box').hidden = !templates.length;
  if (!templates.length) return;
  $('#native-template').replaceChildren(...templates.map((t) => make('option', { value: String(t.id), text: t.label })));
  $('#native-template').onchange = showNativeReport;
  showNativeReport();
}
