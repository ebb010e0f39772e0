// chart.js: the chart of the selected tracks (Chart.js): curves thinned to what the pixels
// show, key markers where they are apart, rotations in degrees, the view's time as a cursor
// drawn over it, and the readout of exact values.

import { api } from '/api.js';
import { $, text, make, clearedCanvas } from '/dom.js';
import { editedKey, selectedKeys, snapToFrames } from '/keys.js';
import { state, writeUrl } from '/state.js';
import { begin, publish } from '/status.js';
import { boneName, fileName, frameOf, readable, trackTitle, valueText } from '/words.js';

export function trackRange() {
  const tracks = state.selected.map((n) => state.entry.tracks[n]);
  if (!tracks.length) return [0, Math.max(state.entry.duration || 1, 1e-6)];
  // from 0 (or the first key, if earlier) to the duration (or the last key): what a track does
  // before its first key shows too (Zouna tracks hold their last key's value there)
  let lo = Math.min(0, ...tracks.map((t) => t.time_range[0]));
  let hi = Math.max(state.entry.duration || 0, ...tracks.map((t) => t.time_range[1]));
  if (!(hi > lo)) { lo -= 0.5; hi += 0.5; }
  if (tracks.some((t) => t.kind === 'events')) { // markers at the very edges would be clipped
    const pad = (hi - lo) * 0.05;
    lo -= pad; hi += pad;
  }
  return [lo, hi];
}

export const palette = ['#1f6feb', '#d1242f', '#1a7f37', '#9a6700', '#8250df', '#bf3989', '#0a7ea4', '#57606a'];

// A colour per curve, distinct however many: the palette, then hues a golden angle apart.
export const colourOf = (i) => (i < palette.length ? palette[i] : `hsl(${Math.round((i * 137.508) % 360)}, 62%, 44%)`);

// A unit quaternion (x, y, z, w) as Euler angles in degrees, X then Y then Z (three.js's 'XYZ':
// the rotation matrix's terms, as Euler.setFromRotationMatrix reads them).
export function eulerDegrees([x, y, z, w]) {
  const n = Math.hypot(x, y, z, w) || 1;
  [x, y, z, w] = [x / n, y / n, z / n, w / n];
  const m11 = 1 - 2 * (y * y + z * z), m12 = 2 * (x * y - z * w), m13 = 2 * (x * z + y * w);
  const m22 = 1 - 2 * (x * x + z * z), m23 = 2 * (y * z - x * w), m32 = 2 * (y * z + x * w), m33 = 1 - 2 * (x * x + y * y);
  const ey = Math.asin(Math.min(Math.max(m13, -1), 1));
  const [ex, ez] = Math.abs(m13) < 0.9999999 ? [Math.atan2(-m23, m33), Math.atan2(-m12, m11)] : [Math.atan2(m32, m22), 0];
  return [ex, ey, ez].map((a) => (a * 180) / Math.PI);
}

export const isRotation = (t) => t.semantic === 'NORMALIZED_QUATERNION' && t.array_size === 1;

// What a curve is called: the bone (its name, or its handle's), the channel, the component.
export const boneOf = (t) => (t.target && boneName(t.target)) || `track ${t.n}`;

export const channelOf = (t) => t.property_name || (t.kind === 'events' ? 'events' : 'value');

export const componentNames = (t) => {
  const n = { FLOAT: 1, FLOAT2: 2, FLOAT3: 3, FLOAT4: 4, FLOAT2X2: 4, FLOAT3X3: 9, FLOAT4X4: 16, INT: 1, INT2: 2, INT3: 3, INT4: 4, UINT: 1, UINT2: 2, UINT3: 3, UINT4: 4, BOOL: 1 }[t.type] || 1;
  const base = n <= 4 ? ['x', 'y', 'z', 'w'].slice(0, n) : Array.from({ length: n }, (_, i) => `m${Math.floor(i / Math.sqrt(n))}${i % Math.sqrt(n)}`);
  if (n === 1 && t.array_size === 1) return ['value'];
  return t.array_size > 1 ? Array.from({ length: t.array_size }).flatMap((_, e) => base.map((b) => `[${e}]${n > 1 ? `.${b}` : ''}`)) : base;
};

// The chart drawn again; its canvas counts the draws done and in flight (for a reader of the DOM:
// the browser tests and the page benchmark wait on them).
// Draws asked for while one is being made are made once, after it, with the state as it is
// then (ticking 19 tracks makes two or three draws, not 19). Each call ends when a draw begun
// after it has ended, with that draw's error if it failed.
let drawLoop = null, drawDirty = false;

export async function drawChart() {
  const canvas = $('#chart');
  const end = begin();
  canvas.dataset.pending = String(Number(canvas.dataset.pending || 0) + 1);
  drawDirty = true;
  if (!drawLoop) {
    drawLoop = (async () => {
      let failure = null;
      while (drawDirty) {
        drawDirty = false;
        try { await drawChartNow(); failure = null; } catch (e) { failure = e; }
      }
      return failure;
    })().finally(() => { drawLoop = null; });
  }
  const failure = await drawLoop;
  canvas.dataset.pending = String(Number(canvas.dataset.pending) - 1);
  canvas.dataset.drawn = String(Number(canvas.dataset.drawn || 0) + 1);
  if (!failure && state.entry) {
    publish('chart', state.entry.id);
    publish('chartDraws', canvas.dataset.drawn);
  }
  end();
  if (failure) throw failure;
}

// A track's keys, fetched once (they do not change with the window) until forgetAnswers; null
// for a track of more keys than its markers could show apart, unless the window holds few.
const keysKept = new Map(); // "entry/track" -> keys
export async function keysOf(entry, t, lo, hi) {
  const path = `${entry.id}/${t.n}`;
  if (keysKept.has(path)) return keysKept.get(path);
  const span = Math.max(t.time_range[1] - t.time_range[0], 1e-9);
  const inWindow = t.key_count * Math.min(1, (hi - lo) / span);
  if (t.key_count > 20000 && inWindow > 2000) return null; // too dense to mark: the curve says it
  const keys = await api(`/api/resources/${entry.id}/tracks/${t.n}/keys`);
  keysKept.set(path, keys);
  return keys;
}

// A sample answer (GET .../sample?from=&to=&count=) of an entry's track over a window, kept for
// the last few windows: the draws of a quick run of ticks or a redraw for the cursor's sake ask
// animdex once a track and window. Each answer is a fresh copy (the caller reshapes its values).
const SAMPLES_KEPT = 128;
const samplesKept = new Map();
async function samplesOf(id, n, lo, hi, count) {
  const path = `/api/resources/${id}/tracks/${n}/sample?from=${lo}&to=${hi}&count=${count}`;
  let answer = samplesKept.get(path);
  if (!answer) {
    answer = api(path);
    samplesKept.set(path, answer);
    answer.catch(() => samplesKept.delete(path));
    if (samplesKept.size > SAMPLES_KEPT) samplesKept.delete(samplesKept.keys().next().value);
  }
  const { times, values } = await answer;
  return { times, values: values.slice() };
}

// The kept keys and samples are forgotten when an entry may have changed (opened again after a
// redecode or a name list).
export function forgetAnswers() {
  keysKept.clear();
  samplesKept.clear();
}

// Key markers where they are apart on screen: the first key of each few pixels of the window.
export function apart(points, lo, hi, width) {
  const shown = [], cell = Math.max((hi - lo) / Math.max(width / 4, 1), 0);
  let last = -Infinity;
  for (const p of points) {
    if (p.x < lo || p.x > hi) continue;
    if (p.x - last >= cell) { shown.push(p); last = p.x; }
  }
  return shown;
}

export async function drawChartNow() {
  const entry = state.entry;
  if (!entry) return;
  const [lo, hi] = state.window || trackRange();
  // the window's ends as a person writes them (a zoom halves 0 to 1.667 s at 0.4167), exact on hover
  for (const [input, v] of [[$('#from'), lo], [$('#to'), hi]]) { input.value = readable(v); input.title = `${v} s`; }
  const selected = state.selected.map((n) => entry.tracks[n]).filter(Boolean);
  const csv = selected.find((t) => t.kind !== 'events');
  const csvLink = $('#csv-link');
  csvLink.hidden = !csv;
  if (csv) {
    csvLink.href = `/api/resources/${entry.id}/tracks/${csv.n}/sample?from=${lo}&to=${hi}&count=1001&format=csv`;
    csvLink.download = fileName(`${entry.name || entry.crc32} - ${csv.name}`, 'csv');
  }
  const datasets = [];
  const events = [];
  let colour = 0;
  state.keyTimes = new Map();
  // every track's answers asked for at once, then the curves made in the table's order
  const fetched = await Promise.all(selected.map((t) => {
    if (t.kind === 'events') return api(`/api/resources/${entry.id}/tracks/${t.n}/sample?from=${lo}&to=${hi + 1e-6}`);
    const pair = state.compare && state.compare.byTrack.get(t.n);
    return Promise.all([
      samplesOf(entry.id, t.n, lo, hi, 500),
      keysOf(entry, t, lo, hi),
      pair && !pair.reason
        ? samplesOf(state.compare.id, pair.b, lo, hi, 500).catch(() => null)
        : null,
    ]);
  }));
  for (const [index, t] of selected.entries()) {
    if (t.kind === 'events') {
      const answer = fetched[index];
      datasets.push({ label: `${t.n} ${trackTitle(t)}`, curve: `${t.n}`, data: answer.events.map((e) => ({ x: e.time, y: 0, event: e })), showLine: false,
        pointStyle: 'triangle', pointRadius: 7, backgroundColor: palette[colour % palette.length], borderColor: palette[colour++ % palette.length] });
      state.keyTimes.set(t.n, answer.events.map((e) => e.time));
      events.push(...answer.events.map((e) => `${e.time} s: class ${e.message_class} → ${e.receiver}${e.receiver_name ? ` (${e.receiver_name})` : ''}, parameter ${e.parameter}`));
      continue;
    }
    const [samples, stored, other] = fetched[index];
    const keys = stored ? { times: stored.times, values: stored.values } : { times: [], values: [] };
    state.keyTimes.set(t.n, stored ? keys.times : null); // null: too many to tick
    const width = $('#chart').clientWidth || 800;
    const euler = state.euler && isRotation(t);
    const names = euler ? ['x', 'y', 'z'] : componentNames(t);
    const toNumber = (v) => (typeof v === 'boolean' ? Number(v) : v);
    const shape = (values) => (euler ? values.map(eulerDegrees) : values); // degrees, or as stored
    samples.values = shape(samples.values);
    keys.values = shape(keys.values);
    if (other) other.values = shape(other.values);
    const axis = euler ? 'degrees' : 'y';
    names.forEach((name, c) => {
      const color = colourOf(colour++);
      // a scalar has no component to name ("KeyframerFloat_Z value", not "... value value")
      const label = `${boneOf(t)} ${channelOf(t)}${name === 'value' ? '' : ` ${name}`}${euler ? ' (°)' : ''}`;
      const curve = `${t.n}:${c}`;
      datasets.push({ label, track: t.n, component: c, curve, yAxisID: axis, data: samples.times.map((x, i) => ({ x, y: toNumber(samples.values[i][c]) })),
        showLine: true, pointRadius: 0, borderWidth: 1.5, borderColor: color, backgroundColor: color, tension: 0 });
      if (other) {
        datasets.push({ label: `${label} (entry ${state.compare.id})`, curve, yAxisID: axis, data: other.times.map((x, i) => ({ x, y: toNumber(other.values[i][c]) })),
          showLine: true, pointRadius: 0, borderWidth: 1.5, borderDash: [6, 4], borderColor: color, backgroundColor: color, tension: 0, compared: true });
      }
      // each key where the edits not saved yet put it (a deleted one not drawn), the chosen larger
      const chosen = selectedKeys(t.n);
      const placed = keys.times.map((x, i) => {
        const at = editedKey(t.n, i, { time: x, value: keys.values[i] });
        return at && { x: at.time, y: toNumber(at.value[c]), track: t.n, key: i, edited: at.value !== keys.values[i] || at.time !== x };
      }).filter(Boolean).sort((a, b) => a.x - b.x);
      const keyPoints = apart(placed, lo, hi, width);
      datasets.push({ label: `${label} keys`, curve, keyComponent: c, yAxisID: axis, data: keyPoints, showLine: false, pointStyle: 'rectRot',
        borderColor: color, backgroundColor: keyPoints.map((p) => (p.edited ? color : '#fff')),
        pointRadius: keyPoints.map((p) => (chosen.has(p.key) ? 6 : 3.5)) });
    });
  }
  $('#events').replaceChildren(...events.map((e) => make('li', { text: e })));
  for (const d of datasets) d.hidden = state.hiddenCurves.has(d.curve);
  const config = {
    type: 'scatter',
    data: { datasets },
    options: {
      animation: false, responsive: true, maintainAspectRatio: false, parsing: false,
      scales: {
        x: { type: 'linear', min: lo, max: hi, title: { display: true, text: 'time (s)' }, ticks: { callback: (v) => `${readable(v)}` } },
        y: { display: datasets.some((d) => d.yAxisID !== 'degrees'), ticks: { callback: (v) => readable(v) } },
        // rotations in degrees on an axis of their own
        degrees: { position: 'right', display: datasets.some((d) => d.yAxisID === 'degrees'), grid: { drawOnChartArea: false },
          title: { display: true, text: 'degrees' }, ticks: { callback: (v) => `${readable(v)}°` } },
      },
      plugins: {
        legend: { labels: { filter: (item) => !item.text.endsWith(' keys'), boxWidth: 12 }, onClick: toggleCurve },
        tooltip: { callbacks: { label: (ctx) => ctx.raw.event ? `message ${ctx.raw.event.message_class} → ${ctx.raw.event.receiver_name || ctx.raw.event.receiver}` : `${ctx.dataset.label}: ${ctx.raw.y}` } },
      },
    },
  };
  config.plugins = [timeCursor];
  if (state.chart) state.chart.destroy();
  state.chart = new Chart($('#chart'), config);
  writeUrl();
  const view = state.motion && state.motion.view;
  if (view && view.entry && view.entry.id === entry.id) {
    await view.refreshSweep();
    if (state.compare) await view.setGhost(state.compare.id); /* its sweep: the same window */
    view.updatePlayback();
  }
  if (state.motion && state.motion.timeline) state.motion.timeline.draw();
  // the readout follows the selection
  readoutNow();
}

// The readout at the time shown, if there is one (its failure said in its place).
export function readoutNow() {
  if (state.time !== null && Number.isFinite(state.time)) readoutAt(state.time).catch((e) => text($('#readout'), e.message));
}

// A legend clicked: its curve hidden or shown, with its key markers and the compared entry's
// curve, and kept so through zooms and new ticks until the entry changes.
function toggleCurve(event, item, legend) {
  const chart = legend.chart, curve = chart.data.datasets[item.datasetIndex].curve;
  const hide = !state.hiddenCurves.has(curve);
  if (hide) state.hiddenCurves.add(curve); else state.hiddenCurves.delete(curve);
  chart.data.datasets.forEach((d, i) => { if (d.curve === curve) chart.setDatasetVisibility(i, !hide); });
  chart.update();
  $('#chart').dataset.hiddenCurves = [...state.hiddenCurves].join(' ');
}

// The chart's cursor (the view's time) on a canvas of its own over the chart, so that a frame of
// playback moves one line and never draws the curves again.
export function drawCursor(chart = state.chart) {
  const overlay = $('#chart-cursor');
  if (!chart || !chart.canvas || !chart.chartArea || !overlay) return;
  const source = chart.canvas;
  const g = clearedCanvas(overlay, source.width, source.height);
  if (state.time === null || !Number.isFinite(state.time)) return;
  const x = chart.scales.x.getPixelForValue(state.time);
  if (x < chart.chartArea.left || x > chart.chartArea.right) return;
  const ratio = source.width / (source.clientWidth || source.width);
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.strokeStyle = '#d1242f';
  g.lineWidth = 1.5;
  g.beginPath();
  g.moveTo(x, chart.chartArea.top);
  g.lineTo(x, chart.chartArea.bottom);
  g.stroke();
  overlay.dataset.time = String(state.time);
}

// The cursor drawn again whenever Chart.js draws the chart (a resize, a legend toggled).
export const timeCursor = { id: 'timeCursor', afterDraw: (chart) => drawCursor(chart) };

// The readout asks the API for the exact values at the time under the pointer (or the view's).
// The chart's time under a pointer event (from the canvas's own box, so that an event whose
// target is another element, a release outside the chart, says where on the chart it is).
export const chartTime = (event) => {
  const chart = state.chart;
  const box = $('#chart').getBoundingClientRect();
  const x = chart ? chart.scales.x.getValueForPixel(event.clientX - box.left) : NaN;
  return Number.isFinite(x) ? Math.min(Math.max(x, chart.scales.x.min), chart.scales.x.max) : null;
};

export async function readout(event) {
  const t = chartTime(event);
  if (t !== null) await readoutAt(t);
}

export async function readoutAt(t) {
  const chart = state.chart, entry = state.entry;
  if (!chart || !entry) return;
  const asked = ++state.readoutToken;
  const lines = [], exact = [];
  const values = {};
  let shown = t;
  // every charted track asked at once (and the compared version's, at the same time)
  const tracks = state.selected.filter((n) => entry.tracks[n] && entry.tracks[n].kind !== 'events');
  const answers = await Promise.all(tracks.map(async (n) => {
    const answer = await api(`/api/resources/${entry.id}/tracks/${n}/sample?t=${t}`);
    const pair = state.compare && state.compare.byTrack.get(n);
    const there = pair && !pair.reason
      ? await api(`/api/resources/${state.compare.id}/tracks/${pair.b}/sample?t=${answer.times[0]}`).catch(() => null) : null;
    return { n, answer, pair, there };
  }));
  for (const { n, answer, pair, there } of answers) {
    const track = entry.tracks[n];
    shown = answer.times[0];
    values[n] = answer.values[0];
    let line = `${boneOf(track)} ${channelOf(track)} (track ${n}): ${valueText(answer.values[0])}`;
    exact.push(`track ${n}: ${JSON.stringify(answer.values[0])}`);
    if (isRotation(track)) line += ` = ${eulerDegrees(answer.values[0]).map((d) => readable(d)).join('°, ')}° (X, Y, Z)`;
    // comparing: the other version's value there, and the difference
    const a = [answer.values[0]].flat(), b = there ? [there.values[0]].flat() : [];
    if (there && a.length === b.length) {
      line += `; entry ${state.compare.id}: ${valueText(there.values[0])}, difference ${valueText(a.map((v, i) => Number(v) - Number(b[i])))}`;
      exact.push(`entry ${state.compare.id}, track ${pair.b}: ${JSON.stringify(there.values[0])}`);
    }
    lines.push(line);
  }
  if (asked !== state.readoutToken) return; // a newer move won
  const element = $('#readout');
  element.dataset.t = String(shown);
  element.dataset.values = JSON.stringify(values);
  element.title = [`t = ${shown} s`, ...exact].join('\n'); // the exact values on hover; the text as a person writes them
  const view = state.motion && state.motion.view;
  const when = view && view.inFrames ? `frame ${frameOf(shown, view.fps)} (t = ${readable(shown)} s)` : `t = ${readable(shown)} s`;
  text(element, `${when}\n${lines.join('\n')}`);
}

// The chart's controls: the window (from, to, zoom, the wheel), the rotations' view, and pressing
// on the chart to move the view's time.
export function setUpChart() {
  $('#rotation-view').addEventListener('click', () => {
    state.euler = !state.euler;
    const button = $('#rotation-view');
    button.setAttribute('aria-pressed', String(state.euler));
    text(button, state.euler ? 'Rotations: Euler degrees' : 'Rotations: quaternions');
    drawChart();
  });
  $('#window').addEventListener('submit', (event) => {
    event.preventDefault();
    const lo = Number($('#from').value), hi = Number($('#to').value);
    if (Number.isFinite(lo) && Number.isFinite(hi) && hi > lo) { state.window = [lo, hi]; drawChart(); }
  });
  const zoom = (factor) => {
    const [lo, hi] = state.window || trackRange();
    const mid = (lo + hi) / 2, half = ((hi - lo) / 2) * factor;
    state.window = [mid - half, mid + half];
    drawChart();
  };
  $('#zoom-in').addEventListener('click', () => zoom(0.5));
  $('#zoom-out').addEventListener('click', () => zoom(2));
  $('#reset-window').addEventListener('click', () => { state.window = null; drawChart(); });
  let pending = null, scrubbing = false, frame = 0;
  // pressing (and dragging) on the chart moves the view's time there: the press and the release
  // exactly (a pose asked of animdex, whose answer updates the readout), every move between once
  // a frame from the view's sweep (no request), so that the view follows the pointer and the
  // view, the chart's cursor and the readout end on the same time
  const scrub = (event, exact = true) => {
    const t = chartTime(event);
    const view = state.motion && state.motion.view;
    if (t === null) return;
    state.time = t;
    drawCursor();
    if (view && view.entry) {
      if (exact) { view.playing = false; view.seek(t); } else view.preview(t);
    } else readoutAt(t).catch((e) => text($('#readout'), e.message));
  };
  // the legend and the axes are not the time: a press there (a curve toggled) leaves it, and the
  // pointer over them reads nothing out
  const overCurves = (event) => {
    const area = state.chart && state.chart.chartArea, y = event.clientY - $('#chart').getBoundingClientRect().top;
    return !!area && y >= area.top && y <= area.bottom;
  };
  // a shift-drag from a place with no key: a box, whose keys (of one track: the editor's, else
  // the first boxed) are added to the chosen ones
  let boxing = null; // {x, y} where it began, in the chart's pixels
  const boxRect = (event) => {
    const box = $('#chart').getBoundingClientRect(), x = event.clientX - box.left, y = event.clientY - box.top;
    return { left: Math.min(x, boxing.x), right: Math.max(x, boxing.x), top: Math.min(y, boxing.y), bottom: Math.max(y, boxing.y) };
  };
  const keysIn = (r) => {
    const chart = state.chart, byTrack = new Map();
    chart.data.datasets.forEach((set, d) => {
      if (set.keyComponent === undefined || set.hidden) return;
      chart.getDatasetMeta(d).data.forEach((e, j) => {
        if (e.x < r.left || e.x > r.right || e.y < r.top || e.y > r.bottom) return;
        const p = set.data[j];
        if (!byTrack.has(p.track)) byTrack.set(p.track, new Set());
        byTrack.get(p.track).add(p.key);
      });
    });
    if (!byTrack.size) return null;
    const shown = Number($('#edit-track').value);
    const track = byTrack.has(shown) ? shown : byTrack.keys().next().value;
    return { track, keys: [...byTrack.get(track)] };
  };
  // a key's marker dragged (the key editor open): the marker follows the pointer (its time
  // snapped to frames when asked), and where it is let go the key is moved there
  let dragging = null; // {point, dataset, axis, x, y, moved}
  const dragTo = (event) => {
    const chart = state.chart, box = $('#chart').getBoundingClientRect();
    let t = chartTime(event);
    const view = state.motion && state.motion.view;
    if (t === null) return null;
    if (snapToFrames()) { const fps = (view && view.fps) || 30; t = Math.round(t * fps) / fps; }
    const v = chart.scales[dragging.axis].getValueForPixel(event.clientY - box.top);
    return Number.isFinite(v) ? { t, v } : null;
  };
  // a box may begin on the axes' margins too (the keys at the area's edges), not on the legend
  const underLegend = (event) => {
    const legend = state.chart && state.chart.legend, y = event.clientY - $('#chart').getBoundingClientRect().top;
    return !!state.chart && y >= (legend ? legend.bottom : 0);
  };
  $('#chart').addEventListener('pointerdown', (event) => {
    // a key's marker pressed (one on the area's edge half outside it): that key chosen (the key
    // editor shows it), and the time moved there
    const found = state.chart && state.chart.getElementsAtEventForMode(event, 'nearest', { intersect: true }, false)
      .map((e) => ({ dataset: state.chart.data.datasets[e.datasetIndex], point: state.chart.data.datasets[e.datasetIndex].data[e.index] }))
      .find((e) => e.point && e.point.key !== undefined);
    const hit = found && found.point;
    const editing = !$('#key-editor').hidden;
    // shift: a key added to the chosen ones (or taken out), or a box begun around some
    if (event.shiftKey && editing && (hit || underLegend(event))) {
      clearTimeout(pending);
      if (hit) { $('#chart').dispatchEvent(new CustomEvent('keystoggled', { detail: { track: hit.track, keys: [hit.key] } })); return; }
      $('#chart').setPointerCapture?.(event.pointerId);
      const box = $('#chart').getBoundingClientRect();
      boxing = { x: event.clientX - box.left, y: event.clientY - box.top };
      return;
    }
    if (hit) $('#chart').dispatchEvent(new CustomEvent('keychosen', { detail: { track: hit.track, key: hit.key } }));
    else if (!overCurves(event)) return;
    else if (editing) $('#chart').dispatchEvent(new CustomEvent('keystoggled', { detail: { track: Number($('#edit-track').value), keys: [], only: true } }));
    clearTimeout(pending);
    $('#chart').setPointerCapture?.(event.pointerId);
    if (hit && editing) {
      dragging = { point: hit, dataset: found.dataset, axis: found.dataset.yAxisID || 'y', x: event.clientX, y: event.clientY, moved: false };
      scrub(event);
      return;
    }
    scrubbing = true;
    scrub(event);
  });
  window.addEventListener('pointerup', (event) => {
    if (boxing) {
      const rect = boxRect(event);
      boxing = null;
      $('#key-box').hidden = true;
      const keys = keysIn(rect);
      if (keys) $('#chart').dispatchEvent(new CustomEvent('keystoggled', { detail: keys }));
      return;
    }
    if (dragging) {
      const drag = dragging, to = drag.moved ? dragTo(event) : null;
      dragging = null;
      delete $('#chart').dataset.dragging;
      if (to) {
        $('#chart').dispatchEvent(new CustomEvent('keydragged', { detail: { track: drag.point.track, key: drag.point.key,
          component: drag.dataset.keyComponent, time: to.t, value: to.v } }));
      }
      return;
    }
    if (!scrubbing) return;
    scrubbing = false;
    cancelAnimationFrame(frame);
    scrub(event);
  });
  $('#chart').addEventListener('keysedited', () => { if (state.chart) drawChart(); });
  $('#chart').addEventListener('pointermove', (event) => {
    clearTimeout(pending);
    if (boxing) {
      const r = boxRect(event), shown = $('#key-box');
      Object.assign(shown.style, { left: `${r.left}px`, top: `${r.top}px`, width: `${r.right - r.left}px`, height: `${r.bottom - r.top}px` });
      shown.hidden = false;
      return;
    }
    if (dragging) {
      if (!dragging.moved && Math.hypot(event.clientX - dragging.x, event.clientY - dragging.y) < 3) return; // a click
      dragging.moved = true;
      const to = dragTo(event);
      if (!to) return;
      dragging.point.x = to.t;
      dragging.point.y = to.v;
      $('#chart').dataset.dragging = `${dragging.point.track}:${dragging.point.key}`;
      state.chart.update('none');
      return;
    }
    if (scrubbing) {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => scrub(event, false));
      return;
    }
    if (!overCurves(event)) return;
    pending = setTimeout(() => readout(event).catch((e) => text($('#readout'), e.message)), 60);
  });
  $('#chart').addEventListener('wheel', (event) => {
    if (!state.chart) return;
    event.preventDefault();
    const at = state.chart.scales.x.getValueForPixel(event.offsetX);
    const [lo, hi] = state.window || trackRange();
    const factor = event.deltaY < 0 ? 0.8 : 1.25;
    state.window = [at - (at - lo) * factor, at + (hi - at) * factor];
    drawChart();
  }, { passive: false });
}
