// view_frames.js: the 3D view's playback (view3d.js): frames drawn from the sweep the view
// fetched, the clock that plays them forward or back within a loop range, the step and the time
// text; and the numbers the view shares (a pose's floats per node, a float32 as animdex writes
// it). Methods of MotionView, mixed into its prototype.
import { publish } from '/status.js';
import { frameOf } from '/words.js';

export const NODE_FLOATS = 26; // per node and time in format=f32: translation 3, rotation 4, scale 3, world 16

const $ = (selector) => document.querySelector(selector);
// A float32 as animdex writes it: the shortest decimal that reads back as the same float32.
export const shortest = (x) => {
  const f = Math.fround(x);
  if (!Number.isFinite(f)) return String(f);
  for (let digits = 1; digits < 9; digits++) {
    const text = String(Number(f.toPrecision(digits)));
    if (Math.fround(Number(text)) === f) return text;
  }
  return String(Number(f.toPrecision(9)));
};

// The index of the time nearest t in increasing times.
export function nearest(times, t) {
  let lo = 0, hi = times.length - 1;
  while (hi - lo > 1) { const mid = (lo + hi) >> 1; if (times[mid] <= t) lo = mid; else hi = mid; }
  return Math.abs(times[hi] - t) < Math.abs(t - times[lo]) ? hi : lo;
}

export const playback = {
  // A frame of playback: the sweep's sample nearest t, no request.
  frameAt(t) {
    const sweep = this.sweep;
    if (!sweep || !sweep.times.length) return;
    const k = nearest(sweep.times, t);
    const start = k * sweep.stride + 1;
    this.time = sweep.times[k];
    this.draw(sweep.data.subarray(start, start + this.nodes.length * NODE_FLOATS), sweep.times[k]);
    publish('frames', ++this.frames); // frames of playback drawn
    this.updatePlayback(); // the time text and the scrub bar follow the frame shown
    this.hooks.onTime(this.time, false);
  },

  // A frame while the time is dragged: the sweep's sample nearest t at once, without a request;
  // the answer to a seek asked before (the press) is dropped when it comes, so the view stays
  // under the pointer. Without a sweep, a seek.
  preview(t) {
    this.playing = false;
    if (!this.sweep || !this.sweep.times.length) { this.seek(t); return; }
    this.seeks++;
    this.frameAt(t);
  },

  // Plays forward (direction 1) or back (-1), within the loop range when one is set.
  play(direction = 1) {
    if (!this.sweep) return;
    this.direction = direction < 0 ? -1 : 1;
    if (this.playing) { this.updatePlayback(); return; } // the running clock turns round
    this.playing = true;
    let last = performance.now();
    let clock = this.time;
    const tick = (now) => {
      if (!this.playing) return;
      const range = this.range || [this.sweep.lo, this.sweep.hi];
      const lo = Math.max(range[0], this.sweep.lo), hi = Math.min(range[1], this.sweep.hi);
      clock += ((now - last) / 1000) * this.speed * this.direction;
      last = now;
      if (clock > hi || clock < lo) {
        const past = clock > hi ? clock - hi : lo - clock;
        if (this.loop && hi > lo) clock = this.direction > 0 ? lo + (past % (hi - lo)) : hi - (past % (hi - lo));
        else { clock = clock > hi ? hi : lo; this.frameAt(clock); this.pause(); return; }
      }
      this.frameAt(clock);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    this.updatePlayback();
  },

  // J and L, as video and animation editors have them: playing already that way, twice as fast
  // (up to 8x); else that way at the speed chosen.
  shuttle(direction) {
    const dir = direction < 0 ? -1 : 1;
    if (this.playing && this.direction === dir) this.setSpeed(Math.min(this.speed * 2, 8));
    this.play(dir);
  },

  // The loop range ([lo, hi] within the window, or null for the whole window).
  setRange(range) { this.range = range; },

  pause() {
    if (!this.playing) return;
    this.playing = false;
    this.updatePlayback();
    this.seek(this.time); // the frame shown, exactly
  },

  step(frames) {
    this.playing = false;
    const [lo, hi] = this.hooks.window();
    const t = Math.min(Math.max(this.time + frames / this.fps, lo), hi);
    this.seek(t);
  },

  updatePlayback() {
    const [lo, hi] = this.hooks.window();
    const scrub = $('#scrub');
    scrub.value = String(hi > lo ? Math.round(((this.time - lo) / (hi - lo)) * 1000) : 0);
    $('#play').textContent = this.playing ? 'Pause' : 'Play';
    $('#play').setAttribute('aria-pressed', String(this.playing));
    // as a person writes it, in seconds or frames; exactly, on hover
    $('#time-text').textContent = this.inFrames ? `frame ${frameOf(this.time, this.fps)}` : `${Number(this.time.toFixed(3))} s`;
    $('#time-text').title = `${shortest(this.time)} s${this.inFrames ? ` (${this.fps} frames a second)` : ''}`;
    $('#view').dataset.time = String(this.time);
    $('#view').dataset.playing = String(this.playing);
    $('#view').dataset.direction = String(this.direction);
    $('#view').dataset.speed = String(this.speed);
  },

  // Frame f (at the frames a second chosen), within the window: "go to frame".
  goToFrame(f) {
    this.playing = false;
    const [lo, hi] = this.hooks.window();
    this.seek(Math.min(Math.max(f / this.fps, lo), hi));
  },

  // The playback speed, shown in the Speed box (which offers 0.1x to 8x).
  setSpeed(speed) {
    this.speed = speed;
    const box = $('#speed');
    if ([...box.options].some((o) => Number(o.value) === speed)) box.value = String(speed);
    this.hooks.onChange();
    this.updatePlayback();
  },
};
