// timeline.js: the timeline under the 3D view, as a dope sheet has it: a ruler in seconds (or in
// frames, when the page counts in frames) with a tick a frame (at the frames a second chosen),
// a row of key ticks per charted track, the playhead, a loop range; drag to scrub, shift-drag
// to set the loop range, double-click to clear it. Keys: Home and End (the window's ends, or
// the loop's), J, K and L (play back, pause, play), comma and period (a frame), F (frame the
// chosen bone, or all).
//
// hooks: view() -> the MotionView, window() -> [lo, hi], tracks() -> [{n, name, times}],
// onLoop([lo, hi] | null).

import { clearedCanvas } from '/dom.js';
import { keptByFocus } from '/shortcuts.js';
import { seconds } from '/words.js';

const css = (name, fallback) => getComputedStyle(document.documentElement).getPropertyValue(name).trim() || fallback;

// A ruler step in seconds whose ticks are at least `px` apart over `width` pixels for `span`.
function rulerStep(span, width, px) {
  for (const step of [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 15, 30, 60, 120, 300, 600]) {
    if ((step / span) * width >= px) return step;
  }
  return span;
}

// A ruler step in whole frames, at least `px` apart: 1, 2, 5, 10, 20, 50... frames, or the
// rate's own second and its multiples (24, 48, 120... at 24 a second) when a decade step is too
// fine, so that the labels fall on whole seconds where they can.
function frameStep(span, width, px, fps) {
  const steps = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000];
  const apart = (frames) => ((frames / fps / span) * width >= px);
  const decade = steps.find(apart) || Math.ceil(span * fps);
  const second = [1, 2, 5, 10, 30, 60].map((k) => k * fps).find(apart);
  return second && second <= decade * 2 && decade > fps / 2 ? second : decade;
}

export class Timeline {
  constructor(hooks) {
    this.hooks = hooks;
    this.canvas = document.querySelector('#timeline');
    this.loop = null; // [lo, hi], or null for the whole window
    this.drag = null; // {kind: 'scrub' | 'loop', from}
    this.background = null; // everything but the playhead, drawn when the window or tracks change
    new ResizeObserver(() => this.draw()).observe(this.canvas);
    this.setUpEvents();
  }

  // Time at a pointer's x, within the window.
  timeAt(event) {
    const rect = this.canvas.getBoundingClientRect();
    const [lo, hi] = this.hooks.window();
    const u = Math.min(Math.max((event.clientX - rect.left) / rect.width, 0), 1);
    return lo + u * (hi - lo);
  }

  // Everything but the playhead, into a canvas of its own, then the playhead over it: a frame of
  // playback copies the one and draws the other (drawPlayhead).
  draw() {
    const canvas = this.background || (this.background = document.createElement('canvas'));
    const view = this.hooks.view();
    const tracks = this.hooks.tracks();
    const ratio = window.devicePixelRatio || 1;
    const width = this.canvas.clientWidth, rows = Math.max(tracks.length, 1);
    const height = 28 + rows * 12;
    this.canvas.style.height = `${height}px`;
    canvas.width = Math.round(width * ratio);
    canvas.height = Math.round(height * ratio);
    const g = canvas.getContext('2d');
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.clearRect(0, 0, width, height);
    const [lo, hi] = this.hooks.window();
    const span = hi - lo;
    if (!(span > 0) || !width) return;
    const x = (t) => ((t - lo) / span) * width;
    const fg = css('--fg', '#1b1f24'), muted = css('--muted', '#5b6470'), line = css('--line', '#d5dae0');
    const accent = css('--accent', '#1f6feb');
    // the loop range, shaded
    if (this.loop) {
      g.fillStyle = `${accent}22`;
      g.fillRect(x(this.loop[0]), 0, x(this.loop[1]) - x(this.loop[0]), height);
    }
    // frame ticks where they are apart, then the seconds with their labels
    const fps = view ? view.fps : 30;
    g.strokeStyle = line;
    g.beginPath();
    if ((width / span) / fps >= 4) {
      for (let f = Math.ceil(lo * fps); f <= hi * fps; f++) { g.moveTo(x(f / fps) + 0.5, 14); g.lineTo(x(f / fps) + 0.5, 18); }
    }
    g.stroke();
    // the labelled ticks: seconds, or whole frames when the page counts in frames
    const inFrames = Boolean(view && view.inFrames);
    const step = inFrames ? frameStep(span, width, 50, fps) / fps : rulerStep(span, width, 70);
    const labels = [];
    g.strokeStyle = muted;
    g.fillStyle = muted;
    g.font = '11px system-ui, sans-serif';
    g.beginPath();
    const first = Math.ceil(lo / step - (inFrames ? 1e-9 : 0)); // a frame step's float may fall just short
    for (let k = first; k * step <= hi + 1e-9; k++) {
      const t = k * step;
      const label = inFrames ? String(Math.round(t * fps)) : seconds(t);
      g.moveTo(Math.round(x(t)) + 0.5, 10);
      g.lineTo(Math.round(x(t)) + 0.5, 20);
      g.fillText(label, x(t) + 3, 10);
      labels.push(label);
    }
    g.stroke();
    this.canvas.dataset.unit = inFrames ? 'frames' : 'seconds';
    this.canvas.dataset.labels = labels.join(' ');
    // a row of key ticks per charted track
    tracks.forEach((track, r) => {
      const y = 24 + r * 12;
      g.fillStyle = line;
      g.fillRect(0, y + 5, width, 1);
      g.fillStyle = fg;
      if (!track.times) { // more keys than the pixels can tell apart: a band
        g.globalAlpha = 0.5;
        g.fillRect(0, y + 3, width, 4);
        g.globalAlpha = 1;
        return;
      }
      let last = -2;
      for (const t of track.times) {
        if (t < lo || t > hi) continue;
        const px = Math.round(x(t));
        if (px === last) continue; // one tick a pixel column
        g.fillRect(px - 1, y + 1, 2, 8);
        last = px;
      }
    });
    this.canvas.dataset.rows = String(tracks.length);
    this.canvas.dataset.loop = this.loop ? this.loop.join(' ') : '';
    this.canvas.dataset.step = String(step);
    this.drawPlayhead();
  }

  // The background as drawn, and the playhead at the view's time.
  drawPlayhead() {
    const canvas = this.canvas, view = this.hooks.view(), background = this.background;
    if (!background) { this.draw(); return; }
    const g = clearedCanvas(canvas, background.width, background.height);
    g.drawImage(background, 0, 0);
    const [lo, hi] = this.hooks.window();
    if (!view || !view.entry || !(hi > lo)) return;
    const ratio = window.devicePixelRatio || 1, width = canvas.clientWidth;
    const px = Math.round(((Math.min(Math.max(view.time, lo), hi) - lo) / (hi - lo)) * width) + 0.5;
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    g.strokeStyle = css('--accent', '#1f6feb');
    g.lineWidth = 2;
    g.beginPath();
    g.moveTo(px, 0);
    g.lineTo(px, canvas.height / ratio);
    g.stroke();
  }

  setLoop(range) {
    this.loop = range && range[1] > range[0] ? range : null;
    this.hooks.onLoop(this.loop);
    this.draw();
  }

  setUpEvents() {
    const canvas = this.canvas;
    canvas.addEventListener('pointerdown', (event) => {
      const view = this.hooks.view();
      if (!view || !view.entry) return;
      canvas.setPointerCapture(event.pointerId);
      const t = this.timeAt(event);
      if (event.shiftKey) {
        this.drag = { kind: 'loop', from: t };
        this.setLoop(null);
      } else {
        this.drag = { kind: 'scrub' };
        view.preview(t);
      }
    });
    canvas.addEventListener('pointermove', (event) => {
      if (!this.drag) return;
      const t = this.timeAt(event);
      if (this.drag.kind === 'scrub') this.hooks.view().preview(t);
      else { this.loop = [Math.min(this.drag.from, t), Math.max(this.drag.from, t)]; this.draw(); }
    });
    const end = (event) => {
      if (!this.drag) return;
      const drag = this.drag;
      this.drag = null;
      const t = this.timeAt(event);
      if (drag.kind === 'scrub') this.hooks.view().seek(t); // exactly where the button is let go
      else this.setLoop([Math.min(drag.from, t), Math.max(drag.from, t)]);
    };
    canvas.addEventListener('pointerup', end);
    canvas.addEventListener('pointercancel', end);
    canvas.addEventListener('dblclick', () => this.setLoop(null));
    document.addEventListener('keydown', (event) => this.key(event));
  }

  // The dope sheet's keys, when the page is not typing somewhere.
  key(event) {
    const view = this.hooks.view();
    if (!view || !view.entry || event.ctrlKey || event.metaKey || event.altKey
      || keptByFocus(event) || document.querySelector('#entry').hidden
      || document.querySelector('#playback').hidden) return;
    const [lo, hi] = this.loop || this.hooks.window();
    const act = {
      Home: () => view.seek(lo),
      End: () => view.seek(hi),
      j: () => view.shuttle(-1),
      k: () => view.pause(),
      l: () => view.shuttle(1),
      ',': () => view.step(-1),
      '.': () => view.step(1),
      f: () => view.frameSelection(),
    }[event.key.length === 1 ? event.key.toLowerCase() : event.key];
    if (!act) return;
    event.preventDefault();
    act();
  }
}
