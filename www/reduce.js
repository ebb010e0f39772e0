// reduce.js: "Fewer keys": the downloads written with the fewest keys whose largest error,
// where the player sees it (object space: points 3 cm from every bone), stays under the
// threshold typed (reduce=object&error=...cm), and what that reduction cost, in words.

import { api } from '/api.js';
import { $, text } from '/dom.js';
import { count } from '/words.js';

const listeners = [];

// The reduction asked for, as a query ('' for every key as it is).
export function reduceQuery() {
  const box = $('#reduce-on');
  const cm = Number($('#reduce-error').value);
  if (!box || !box.checked || !(cm > 0)) return '';
  return `reduce=object&error=${cm}cm`;
}

// fn() runs again whenever the reduction asked for changes.
export function onReduceChange(fn) {
  listeners.push(fn);
}

const cmText = (v) => `${v < 0.001 ? v.toExponential(1) : Number(v.toPrecision(2))} cm`;

// The error figures of a report's "error" (with its "threshold"), as a person reads them.
export function errorWords(figures) {
  if (!figures || !figures.error) return '';
  const e = figures.error;
  const under = Math.floor(e.share_under_threshold * 10000) / 100;
  return `largest error where the player sees it ${cmText(e.largest.cm)} (${e.largest.node}, at ${Number(e.largest.time.toFixed(3))} s), `
    + `99th percentile ${cmText(e.p99.cm)}, ${under} % of samples under ${cmText(figures.threshold.cm)}`;
}

// The export's report of the reduction beside the box: keys before and after, and the error.
export async function showReduceReport(exportHref) {
  const report = $('#reduce-report');
  const query = reduceQuery();
  report.removeAttribute('data-done');
  if (!query) {
    text(report, '');
    report.dataset.done = 'off';
    return;
  }
  if (!exportHref || !exportHref.includes('/export')) {
    text(report, 'a retargeted clip is downloaded with every key');
    report.dataset.done = 'refused';
    return;
  }
  text(report, 'measuring…');
  try {
    const answer = await api(`${exportHref}${exportHref.includes('?') ? '&' : '?'}summary=1`);
    if (reduceQuery() !== query) return; /* asked again since: the newer answer writes */
    const r = (answer.reduction || [])[0];
    const ratio = r.keys.after ? (r.keys.before / r.keys.after).toFixed(2) : '-';
    text(report, `${count(r.keys.before, 'key', 'keys')} → ${r.keys.after.toLocaleString('en')} (${ratio}x fewer); ${errorWords(r)}`);
    report.dataset.done = 'ok';
  } catch (e) {
    if (reduceQuery() !== query) return;
    text(report, `cannot be reduced so: ${e.message}`);
    report.dataset.done = 'refused';
  }
}

export function wireReduce() {
  const changed = () => { for (const fn of listeners) fn(); };
  $('#reduce-on').addEventListener('change', changed);
  $('#reduce-error').addEventListener('change', changed);
}
