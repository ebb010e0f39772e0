// catalogue.js: the catalogue list: filters, sorting and paging on the server, the rows in sight
// drawn as the list scrolls, the header's counts, the empty states.

import { api } from '/api.js';
import { $, text, make } from '/dom.js';
import { openEntry } from '/entry.js';
import { live, showWaiting, dropListed, followEvents } from '/live.js';
import { state, writeUrl } from '/state.js';
import { count, bytes, KIND_OF_FAMILY, kindOf, seconds, utc } from '/words.js';

export async function loadHealth() {
  try {
    const h = await api('/api/health');
    text($('#health'), `${count(h.counts.resources, 'entry', 'entries')}, ${count(h.counts.tracks, 'track', 'tracks')}, ${bytes(h.counts.bytes)} · animdex ${h.version}`);
    // the Token box only where the catalogue needs one (or one was given)
    $('#token-box').hidden = !(h.token_needed && (h.token_needed.writes || h.token_needed.reads)) && !$('#token').value;
  } catch (e) {
    text($('#health'), e.message);
    $('#token-box').hidden = false; // a private catalogue's health needs the token itself
  }
}

export async function loadClasses() {
  try {
    const { classes } = await api('/api/classes');
    const select = $('#class-filter');
    const names = [...new Set(classes.map((c) => c.class))].sort();
    // the filter is by class; a class the glTF and Radient decoders share says so
    const label = (n) => {
      const kinds = [...new Set(classes.filter((c) => c.class === n).map((c) => KIND_OF_FAMILY[c.family]).filter(Boolean))];
      return kinds.length ? `${kinds.join(' or ')} (${n})` : n;
    };
    select.replaceChildren(make('option', { value: '', text: 'any' }), ...names.map((n) => make('option', { value: n, text: label(n) })));
    select.value = state.filters.class;
  } catch (e) { /* the list is a convenience; the error shows on the catalogue */ }
}

// The current filter as one glTF asset (GET /api/export takes the list's filters).
export function exportQuery() {
  const p = new URLSearchParams();
  for (const [key, value] of Object.entries(state.filters)) if (value) p.set(key, value);
  const skeleton = $('#export-skeleton').value;
  if (skeleton) p.set('skeleton', skeleton);
  return `/api/export?${p}`;
}

// "Export these as one .glb" on a skeleton chosen for the batch (every entry on its tree), or on
// none: the catalogue's skeletons, offered once some are there.
export async function listExportSkeletons() {
  const select = $('#export-skeleton');
  const chosen = select.value;
  const pages = await Promise.all(['Skel_Z', 'Skeleton'].map((c) => api(`/api/resources?class=${c}&limit=50`).catch(() => ({ resources: [] }))));
  const skeletons = pages.flatMap((p) => p.resources);
  select.replaceChildren(make('option', { value: '', text: 'their own rigs' }),
    ...skeletons.map((s) => make('option', { value: String(s.id), text: `${s.name || s.crc32} (${s.class}, entry ${s.id})` })));
  select.value = skeletons.some((s) => String(s.id) === chosen) ? chosen : '';
  $('#export-skeleton-box').hidden = !skeletons.length;
  select.onchange = () => { $('#export-link').href = exportQuery(); };
}

// The list's page: sorted by animdex (the whole catalogue, not the rows loaded), a cursor
// keeping the order from page to page. The first page is small, to show at once; the next ones
// large, read as the list is scrolled.
const FIRST_PAGE = 100, NEXT_PAGE = 500;

export function listQuery(cursor) {
  const p = new URLSearchParams({ limit: String(cursor ? NEXT_PAGE : FIRST_PAGE) });
  for (const [key, value] of Object.entries(state.filters)) if (value) p.set(key, value);
  p.set('sort', state.sort.key);
  p.set('order', state.sort.dir === 'ascending' ? 'asc' : 'desc');
  if (cursor) p.set('cursor', cursor);
  return `/api/resources?${p}`;
}

// Each load of the list from its first page is numbered: an answer to an older one (a search
// typed further since, another sort) is dropped, so the list always shows the newest question.
let question = 0, answered = 0, dropped = 0;
let readingMore = null; // the question whose next page is being read

// Published on #catalogue for a reader of the DOM: data-loading 'true' while the newest
// question or its next page is being read, data-rows the rows loaded, data-complete 'true' once
// they are all of the list's, data-first and data-last the rows in the page (0-based, the last
// excluded), data-drawn-at the scroll they were drawn for, data-dropped the answers dropped;
// a 'listchange' event on it each time these change or the window is drawn.
function publishList() {
  const table = $('#catalogue');
  table.dataset.loading = String(answered !== question || readingMore === question);
  table.dataset.rows = String(state.rows.length);
  table.dataset.complete = String(!state.cursor);
  table.dataset.dropped = String(dropped);
  table.dispatchEvent(new Event('listchange'));
}

export async function loadCatalogue(append = false) {
  if (append && (readingMore === question || !state.cursor)) return;
  const asked = append ? question : ++question;
  const error = $('#catalogue-error');
  if (append) readingMore = asked;
  publishList();
  try {
    const page = await api(listQuery(append ? state.cursor : null));
    if (asked !== question) { dropped++; return; } // a newer question was asked meanwhile
    state.rows = append ? state.rows.concat(page.resources) : page.resources;
    state.cursor = page.next_cursor || null;
    state.total = page.total;
    state.totalExact = page.total_exact !== false;
    // an entry the live stream announced while the list was read is in the list now
    dropListed();
    if (!append) {
      $('#catalogue-window').scrollTop = 0;
      await listExportSkeletons();
      $('#export-link').href = exportQuery();
    }
    $('#export-link').hidden = !state.rows.length;
    error.hidden = true;
  } catch (e) {
    if (asked !== question) { dropped++; return; }
    state.rows = append ? state.rows : [];
    state.cursor = null;
    text(error, e.message);
    error.hidden = false;
  } finally {
    if (append && readingMore === asked) readingMore = null;
    if (!append && asked === question) answered = asked;
    publishList();
  }
  if (asked === question) renderCatalogue();
}

// The list is a window on the rows loaded: only the rows in sight, and some either side, are
// in the page (a spacer row stands for those above and one for those below, at their height),
// so a list of 100,000 rows is drawn as fast as one of 100. Near the end of the rows loaded,
// the next page is read.
const AROUND = 100; // rows kept in the page beyond each edge of the window
let rowHeight = 0; // measured from a row drawn
let drawn = { first: -1, last: -1, rows: null };

function entryRow(r, i) {
  const handle = make('td', { class: 'handle', text: r.crc32 });
  // the clips of one file (a glTF's animations, a bundle's resources) read as one group, marked
  // with an arrow every font has (the ditto mark, U+3003, is a CJK font's alone)
  const previous = state.rows[i - 1];
  const sameFile = previous && previous.filename && previous.filename === r.filename && previous.sha256 === r.sha256;
  if (r.crc32_name) handle.append(' ', make('small', { text: r.crc32_name }));
  const tr = make('tr', { tabindex: '0', 'data-id': String(r.id), 'data-row': String(i), ...(live.fresh.has(r.id) ? { class: 'new' } : {}) }, [
    make('td', { text: kindOf(r), title: r.class }), handle, make('td', { text: r.name || '', title: r.name || '' }), make('td', { text: r.family }),
    make('td', { text: String(r.track_count) }),
    make('td', r.duration === null ? {} : { text: seconds(r.duration), title: `${r.duration} s` }), make('td', { text: bytes(r.size) }),
    make('td', { text: `${utc(r.uploaded_at)}${r.uploaded_by ? ` by ${r.uploaded_by}` : ''}`, title: r.uploaded_at }),
    make('td', { class: sameFile ? 'file same-file' : 'file', text: sameFile ? '↑ same file' : (r.filename || ''), title: r.filename || '' }),
  ]);
  tr.addEventListener('click', () => openEntry(r.id));
  tr.addEventListener('keydown', (event) => { if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); openEntry(r.id); } });
  if (live.fresh.has(r.id)) live.watch.observe(tr);
  return tr;
}

function spacer(rows) {
  const cell = make('td', { colspan: '9' });
  cell.style.height = `${rows * (rowHeight || 32)}px`;
  return make('tr', { class: 'spacer', 'aria-hidden': 'true' }, [cell]);
}

// The rows in sight drawn (again when `all`: the rows themselves changed).
function drawWindow(all) {
  const box = $('#catalogue-window');
  const height = rowHeight || 32;
  const inSight = Math.ceil(box.clientHeight / height) + 1;
  const top = Math.max(0, box.scrollTop - $('#catalogue thead').offsetHeight);
  const sightFirst = Math.floor(top / height), sightLast = Math.min(state.rows.length, sightFirst + inSight);
  const first = Math.max(0, sightFirst - AROUND);
  const last = Math.min(state.rows.length, sightLast + AROUND);
  const table = $('#catalogue');
  table.dataset.drawnAt = String(box.scrollTop); // the scroll the window was last drawn for
  // drawn again only once the rows in sight come near an edge of those drawn (a quarter of
  // AROUND), not at every row scrolled
  const near = AROUND / 4;
  const covered = drawn.first <= Math.max(0, sightFirst - near) && drawn.last >= Math.min(state.rows.length, sightLast + near);
  if (!all && drawn.rows === state.rows && covered) {
    publishList();
    return;
  }
  const rows = state.rows.slice(first, last).map((r, k) => entryRow(r, first + k));
  if (!rowHeight && rows.length) { // measured once shown, then every spacer is drawn at it
    $('#catalogue tbody').replaceChildren(rows[0]);
    rowHeight = rows[0].getBoundingClientRect().height;
  }
  // the row a keyboard user is on keeps the focus when the rows are drawn again
  const focused = document.activeElement && document.activeElement.closest('#catalogue tbody tr[data-id]');
  $('#catalogue tbody').replaceChildren(...(first ? [spacer(first)] : []), ...rows,
    ...(last < state.rows.length ? [spacer(state.rows.length - last)] : []));
  const again = focused && rows.find((r) => r.dataset.id === focused.dataset.id);
  if (again) again.focus({ preventScroll: true });
  drawn = { first, last, rows: state.rows };
  table.dataset.first = String(first);
  table.dataset.last = String(last);
  // within two windows of the end of the rows loaded: the next page
  if (state.cursor && last + 2 * inSight >= state.rows.length) loadCatalogue(true);
  publishList();
}

// The rows in animdex's order (entries the live stream brings in since wait on top, marked new).
export function renderCatalogue() {
  const { key, dir } = state.sort;
  drawWindow(true);
  // an empty list says what to do
  const filtered = Object.values(state.filters).some(Boolean);
  const empty = $('#catalogue-empty');
  empty.hidden = state.rows.length > 0 || !$('#catalogue-error').hidden;
  text(empty, filtered ? 'No entry matches these filters: change them, or clear them to see the whole catalogue.'
    : 'The catalogue is empty: drop animation files above (Zouna Animation_Z, Skel_Z and keyframers, Burnout Paradise vehicle animations and bundles, glTF files, Radient clips), or choose them.');
  for (const button of document.querySelectorAll('#catalogue th button')) {
    if (button.dataset.sort === key) button.setAttribute('aria-sort', dir); else button.removeAttribute('aria-sort');
  }
  $('#more').hidden = !state.cursor;
  showCount();
}

// The list's total over its rows read.
export function showCount() {
  const total = Math.max(state.total ?? state.rows.length, state.rows.length);
  // a large search's total is a count of the matches found so far: "at least"
  const atLeast = state.totalExact === false && state.cursor;
  const all = `${atLeast ? 'at least ' : ''}${count(total, 'entry', 'entries')}`;
  text($('#count'), state.cursor ? `${all}, ${state.rows.length.toLocaleString('en')} read (scroll the list for more)` : all);
  $('#count').dataset.total = String(total);
}

// The list's total read again (a page of one row, with the list's filters) once the live stream
// has changed the catalogue: the count the catalogue's as it is, not as it was when the list was
// read. An answer that comes after the list was asked again is dropped.
export async function loadTotal() {
  const asked = question;
  const p = new URLSearchParams({ limit: '1' });
  for (const [key, value] of Object.entries(state.filters)) if (value) p.set(key, value);
  try {
    const page = await api(`/api/resources?${p}`);
    if (asked !== question || answered !== question) return;
    state.total = page.total;
    state.totalExact = page.total_exact !== false;
    showCount();
  } catch (e) { /* the count stays as it was; the list's own errors show on the catalogue */ }
}

export function setUpCatalogue() {
  $('#q').value = state.filters.q;
  $('#handle-filter').value = state.filters.crc32;
  $('#filters').addEventListener('submit', (event) => {
    event.preventDefault();
    state.filters = { q: $('#q').value.trim(), class: $('#class-filter').value, crc32: $('#handle-filter').value.trim() };
    writeUrl();
    live.waiting = [];
    showWaiting();
    followEvents();
    loadCatalogue();
  });
  $('#class-filter').addEventListener('change', () => $('#filters').requestSubmit());
  $('#clear-filters').addEventListener('click', () => {
    $('#q').value = ''; $('#class-filter').value = ''; $('#handle-filter').value = '';
    $('#filters').requestSubmit();
  });
  $('#more').addEventListener('click', () => loadCatalogue(true));
  // the window follows the scroll, drawn once a frame at most
  let frame = 0;
  $('#catalogue-window').addEventListener('scroll', () => {
    if (!frame) frame = requestAnimationFrame(() => { frame = 0; drawWindow(false); });
  });
  new ResizeObserver(() => drawWindow(false)).observe($('#catalogue-window'));
  // a search as it is typed, once the typing pauses (the answer to the newest one is shown)
  let typing = null;
  $('#q').addEventListener('input', () => {
    clearTimeout(typing);
    typing = setTimeout(() => { if ($('#q').value.trim() !== state.filters.q) $('#filters').requestSubmit(); }, 250);
  });
  for (const button of document.querySelectorAll('#catalogue th button')) {
    button.addEventListener('click', () => {
      // a first click sorts ascending (A to Z, small to large), except by upload, newest first;
      // the next reverses
      const key = button.dataset.sort;
      const first = key === 'id' ? 'descending' : 'ascending';
      const other = first === 'ascending' ? 'descending' : 'ascending';
      state.sort = { key, dir: state.sort.key === key ? (state.sort.dir === first ? other : first) : first };
      writeUrl();
      loadCatalogue();
    });
  }
}
