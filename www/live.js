// live.js: the live catalogue: GET /api/events keeps the list (and the open entry) as the
// team changes it.

import { authorised } from '/api.js';
import { loadHealth, loadCatalogue, loadTotal, renderCatalogue } from '/catalogue.js';
import { $, text } from '/dom.js';
import { openEntry } from '/entry.js';
import { state } from '/state.js';
import { count, utc } from '/words.js';

// The live catalogue: GET /api/events, read with fetch (an EventSource cannot send the token),
// resumed after the last event seen. New entries the filter lets through join the list, marked
// new until they have been on screen for a few seconds; while the user is scrolled away from the
// top of the catalogue they wait behind an "N new" notice instead of moving the rows under the
// pointer. A deleted or redecoded entry that is open says so.

export const SEEN_AFTER_MS = 4000;

export const live = {
  controller: null,
  last: null, // the id of the last event read
  waiting: [], // entries held behind the notice
  fresh: new Set(), // ids marked new
  watch: new IntersectionObserver((seen) => {
    for (const { target, isIntersecting } of seen) {
      if (!isIntersecting) { clearTimeout(target.seenTimer); continue; }
      target.seenTimer = setTimeout(() => {
        live.fresh.delete(Number(target.dataset.id));
        target.classList.remove('new');
        live.watch.unobserve(target);
      }, SEEN_AFTER_MS);
    }
  }),
};

// Does an entry belong in the list as it is filtered? (class and crc32 are filtered by the
// stream; q as the list's search does: a substring of name, class, file or note, any case)
export function listWants(entry) {
  const q = state.filters.q.toLowerCase();
  return !q || [entry.name, entry.class, entry.filename, entry.note].some((v) => v && v.toLowerCase().includes(q));
}

// Is the top of the catalogue out of sight?
export const scrolledAway = () => $('#catalogue-window').scrollTop > 0 || $('#catalogue').getBoundingClientRect().top < 0;

export function showWaiting() {
  const notice = $('#new-notice');
  notice.hidden = !live.waiting.length;
  text(notice, `${count(live.waiting.length, 'new entry', 'new entries')}: show`);
}

// The waiting entries the list holds already (it was read again since they were announced: the
// tab that uploaded them reads it at once) wait no longer.
export function dropListed() {
  const listed = new Set(state.rows.map((r) => r.id));
  live.waiting = live.waiting.filter((entry) => !listed.has(entry.id));
  showWaiting();
}

export function takeWaiting() {
  dropListed();
  if (!live.waiting.length) return;
  for (const entry of live.waiting) { live.fresh.add(entry.id); state.rows.unshift(entry); }
  live.waiting = [];
  showWaiting();
  renderCatalogue();
}

// Many events may come at once (an import of a folder): the list is drawn again, and the
// header's counts read again, once for all of them.
let drawTimer = null, healthTimer = null;

export function drawSoon() {
  if (drawTimer) return;
  drawTimer = setTimeout(() => {
    drawTimer = null;
    if (live.waiting.length && !scrolledAway()) takeWaiting(); else { showWaiting(); renderCatalogue(); }
    shownEvents();
  }, 100);
}

// The header's counts and the list's total read again a second after the last change (the
// total is moved by one at once, as each entry comes or goes; this makes it exact).
export function healthSoon() {
  if (!healthTimer) healthTimer = setTimeout(() => { healthTimer = null; loadHealth(); loadTotal(); }, 1000);
}

const moveTotal = (by) => { if (typeof state.total === 'number') state.total = Math.max(0, state.total + by); };

export function entryEvent(kind, data) {
  const entry = data.entry;
  if (kind === 'created') {
    healthSoon();
    if (!entry || !listWants(entry) || state.rows.some((r) => r.id === entry.id) || live.waiting.some((r) => r.id === entry.id)) return;
    live.waiting.push(entry);
    moveTotal(1);
    drawSoon();
  } else if (kind === 'deleted') {
    healthSoon();
    // one the list holds leaves its total at once; any other, when the total is read again
    if (state.rows.some((r) => r.id === data.id) || live.waiting.some((r) => r.id === data.id)) moveTotal(-1);
    state.rows = state.rows.filter((r) => r.id !== data.id);
    live.waiting = live.waiting.filter((r) => r.id !== data.id);
    drawSoon();
    if (state.entry && state.entry.id === data.id) {
      const gone = $('#entry-gone');
      text(gone, `This entry was deleted at ${utc(data.at)}: what is shown is what was loaded before.`);
      gone.hidden = false;
    }
  } else if (kind === 'redecoded') {
    if (entry) state.rows = state.rows.map((r) => (r.id === entry.id ? entry : r));
    drawSoon();
    if (state.entry && state.entry.id === data.id) {
      text($('#entry-redecoded span'), `This entry was decoded again (decoder version ${data.decoder_version}).`);
      $('#entry-redecoded').hidden = false;
    }
  } else if (kind === 'reset') {
    live.waiting = [];
    showWaiting();
    loadCatalogue();
    healthSoon();
  }
}

// One event block of the stream ("id:", "event:", "data:" lines).
export function eventBlock(block) {
  let id = null, kind = null, data = '';
  for (const line of block.split('\n')) {
    if (line.startsWith('id:')) id = line.slice(3).trim();
    else if (line.startsWith('event:')) kind = line.slice(6).trim();
    else if (line.startsWith('data:')) data += line.slice(5).trim();
  }
  if (id !== null) live.last = id;
  if (kind && data) entryEvent(kind, JSON.parse(data));
  if (live.last !== null) document.body.dataset.eventsRead = live.last;
  if (!drawTimer) shownEvents();
}

// The page says which event it has read, and which its list shows the effect of (for its tests,
// and a reader of the DOM).
export function shownEvents() {
  if (live.last !== null) document.body.dataset.eventsShown = live.last;
}

export function followEvents() {
  if (live.controller) live.controller.abort();
  const controller = new AbortController();
  live.controller = controller;
  const p = new URLSearchParams();
  if (state.filters.class) p.set('class', state.filters.class);
  if (state.filters.crc32) p.set('crc32', state.filters.crc32);
  const headers = authorised(live.last !== null ? { 'Last-Event-ID': live.last } : {});
  (async () => {
    try {
      const response = await fetch(`/api/events?${p}`, { headers, signal: controller.signal });
      if (!response.ok) throw new Error(`${response.status}`);
      document.body.dataset.live = 'true';
      text($('#live-status'), '');
      const reader = response.body.getReader(), decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        for (let end; (end = buffer.indexOf('\n\n')) >= 0;) {
          eventBlock(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
      }
    } catch (e) {
      if (controller.signal.aborted) return;
    }
    if (controller.signal.aborted) return;
    document.body.dataset.live = 'false';
    text($('#live-status'), 'Not following the catalogue live; trying again…');
    setTimeout(() => { if (live.controller === controller) followEvents(); }, 3000);
  })();
}

export function setUpLive() {
  $('#new-notice').addEventListener('click', () => {
    takeWaiting();
    $('#catalogue-section').scrollIntoView({ block: 'start' });
  });
  window.addEventListener('scroll', () => { if (live.waiting.length && !scrolledAway()) takeWaiting(); }, { passive: true });
  $('#reload-entry').addEventListener('click', () => { if (state.entry) openEntry(state.entry.id, state.selected, state.window); });
}
