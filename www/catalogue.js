// catalogue.js: the catalogue list: filters, sorting and paging on the server, the header's
// counts, the empty states.

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
// keeping the order from page to page.
export function listQuery(cursor) {
  const p = new URLSearchParams({ limit: '50' });
  for (const [key, value] of Object.entries(state.filters)) if (value) p.set(key, value);
  p.set('sort', state.sort.key);
  p.set('order', state.sort.dir === 'ascending' ? 'asc' : 'desc');
  if (cursor) p.set('cursor', cursor);
  return `/api/resources?${p}`;
}

export async function loadCatalogue(append = false) {
  const error = $('#catalogue-error');
  try {
    const page = await api(listQuery(append ? state.cursor : null));
    state.rows = append ? state.rows.concat(page.resources) : page.resources;
    state.cursor = page.next_cursor || null;
    state.total = page.total;
    state.totalExact = page.total_exact !== false;
    // an entry the live stream announced while the list was read is in the list now
    dropListed();
    await listExportSkeletons();
    $('#export-link').href = exportQuery();
    $('#export-link').hidden = !state.rows.length;
    error.hidden = true;
  } catch (e) {
    state.rows = append ? state.rows : [];
    state.cursor = null;
    text(error, e.message);
    error.hidden = false;
  }
  renderCatalogue();
}

// The rows in animdex's order (entries the live stream brings in since wait on top, marked new).
export function renderCatalogue() {
  const { key, dir } = state.sort;
  $('#catalogue tbody').replaceChildren(...state.rows.map((r, i) => {
    const handle = make('td', { class: 'handle', text: r.crc32 });
    // the clips of one file (a glTF's animations, a bundle's resources) read as one group, marked
    // with an arrow every font has (the ditto mark, U+3003, is a CJK font's alone)
    const previous = state.rows[i - 1];
    const sameFile = previous && previous.filename && previous.filename === r.filename && previous.sha256 === r.sha256;
    if (r.crc32_name) handle.append(' ', make('small', { text: r.crc32_name }));
    const tr = make('tr', { tabindex: '0', 'data-id': String(r.id), ...(live.fresh.has(r.id) ? { class: 'new' } : {}) }, [
      make('td', { text: kindOf(r), title: r.class }), handle, make('td', { text: r.name || '' }), make('td', { text: r.family }),
      make('td', { text: String(r.track_count) }),
      make('td', r.duration === null ? {} : { text: seconds(r.duration), title: `${r.duration} s` }), make('td', { text: bytes(r.size) }),
      make('td', { text: `${utc(r.uploaded_at)}${r.uploaded_by ? ` by ${r.uploaded_by}` : ''}`, title: r.uploaded_at }),
      make('td', { class: sameFile ? 'file same-file' : 'file', text: sameFile ? '↑ same file' : (r.filename || ''), title: r.filename || '' }),
    ]);
    tr.addEventListener('click', () => openEntry(r.id));
    tr.addEventListener('keydown', (event) => { if (event.key === 'Enter' || event.key === ' ') { event.preventDefault(); openEntry(r.id); } });
    if (live.fresh.has(r.id)) live.watch.observe(tr);
    return tr;
  }));
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
  const total = Math.max(state.total ?? state.rows.length, state.rows.length);
  // a large search's total is a count of the matches found so far: "at least"
  const atLeast = state.totalExact === false && state.cursor;
  text($('#count'), state.rows.length === total && !atLeast ? `${count(total, 'entry', 'entries')}`
    : `${state.rows.length} of ${atLeast ? 'at least ' : ''}${total.toLocaleString('en')} shown`);
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
