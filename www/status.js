// status.js: what the page is doing, published on <body> for a reader of the DOM. The browser
// tests and the page benchmark wait on these states, never on a time, a scroll or a frame count:
//   data-ready    'true' once the page has started
//   data-entry    the entry open and shown whole (summary, tracks, chart, view), '' while one opens
//   data-chart    the entry whose chart was drawn last; data-chart-draws counts the draws done
//   data-pose     the time the view was last posed at exactly (a pose answer drawn)
//   data-pending  the work begun and not yet finished: entries opening, chart draws, poses and
//                 sweeps asked of animdex. The page is still when it is 0.

let pending = 0;

export function publish(name, value) {
  document.body.dataset[name] = String(value);
}

// Work begun: the function returned ends it (once, however often it is called).
export function begin() {
  pending++;
  publish('pending', pending);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    pending--;
    publish('pending', pending);
  };
}

// The work of `run` (a function returning a promise) counted as pending until it settles.
export async function during(run) {
  const end = begin();
  try { return await run(); } finally { end(); }
}
