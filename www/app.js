// animdex web page: upload, browse, chart the catalogue, and see an entry move (view3d.js, loaded
// when an entry opens). No build step; Chart.js and three.js are Debian's, served by the daemon
// under /vendor/chart.js/ and /vendor/three/.
'use strict';

const $ = (selector) => document.querySelector(selector);
const token = () => localStorage.getItem('animdex-token') || '';
const authorised = (headers = {}) => (token() ? { ...headers, Authorization: `Bearer ${token()}` } : headers);
const api = async (path, options = {}) => {
  const response = await fetch(path, { ...options, headers: authorised(options.headers) });
  const text = await response.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (e) { body = null; }
  if (!response.ok) {
    const message = body && body.error ? body.error.message : `${response.status} ${response.statusText}`;
    throw new Error(message);
  }
  return body;
};
const text = (element, value) => { element.textContent = value; return element; };
const make = (tag, attributes = {}, children = []) => {
  const element = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === 'text') element.textContent = value;
    else element.setAttribute(key, value);
  }
  for (const child of children) element.append(child);
  return element;
};
const count = (n, one, many) => `${n} ${n === 1 ? one : many}`;
const bytes = (n) => n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`;
const handleText = (entry) => entry.crc32 + (entry.crc32_name ? ` (${entry.crc32_name})` : '');
// What an entry is, in the words of the one who uploaded it: an animation of a glTF file and a
// Radient clip by their source format (the API's class, RadientAnimationClip, names both), the
// games' resources by their class.
const KIND_OF_FAMILY = { gltf: 'glTF animation', radient: 'Radient clip' };
const kindOf = (entry) => KIND_OF_FAMILY[entry.family] || entry.class;

// ---------------------------------------------------------------------------------------
// The view lives in the URL: ?q=&class=&crc32=&sort=&dir= for the catalogue, &id=&tracks=&from=&to=
// for an open entry, &skeleton=&t=&speed=&cam=&grid= for its 3D view.

const state = {
  filters: { q: '', class: '', crc32: '' },
  sort: { key: 'id', dir: 'descending' },
  rows: [],
  cursor: null,
  total: null, // entries the filters select, of which rows are loaded
  entry: null,
  selected: [],
  window: null, // [from, to]
  chart: null,
  readoutToken: 0,
  time: null, // the view's time, the chart's cursor
  compare: null, // {id, answer, byTrack: Map(track n -> pair)} while comparing with another entry
  motion: null, // the 3D view: {view, timeline} once made, {off: why} when it cannot be
  keyTimes: new Map(), // track n -> its keys' times (the timeline's ticks), for the charted tracks
  euler: true, // the chart shows rotations as Euler angles in degrees, else as quaternions
  keysCache: null, // {entry, keys: Map(track n -> keys)}
};

// What the list sorts by (GET /api/resources?sort=), as the table's headers name them.
const SORT_KEYS = ['id', 'class', 'crc32', 'name', 'family', 'track_count', 'duration', 'size', 'uploaded_at'];

function readUrl() {
  const p = new URLSearchParams(location.search);
  state.filters = { q: p.get('q') || '', class: p.get('class') || '', crc32: p.get('crc32') || '' };
  const sort = SORT_KEYS.includes(p.get('sort')) ? p.get('sort') : 'id';
  state.sort = { key: sort, dir: p.get('dir') === 'ascending' ? 'ascending' : 'descending' };
  return {
    id: p.get('id'), tracks: p.get('tracks'), from: p.get('from'), to: p.get('to'),
    skeleton: p.get('skeleton'), t: p.get('t'), speed: p.get('speed'), cam: p.get('cam'),
    grid: p.get('grid'), compare: p.get('compare'),
  };
}

function writeUrl() {
  const p = new URLSearchParams();
  for (const [key, value] of Object.entries(state.filters)) if (value) p.set(key, value);
  if (state.sort.key !== 'id' || state.sort.dir !== 'descending') { p.set('sort', state.sort.key); p.set('dir', state.sort.dir); }
  if (state.entry) {
    p.set('id', state.entry.id);
    if (state.selected.length) p.set('tracks', state.selected.join(','));
    if (state.window) { p.set('from', state.window[0]); p.set('to', state.window[1]); }
    if (state.compare) p.set('compare', state.compare.id);
    const motion = state.motion, view = motion && motion.view;
    if (view && motion.skeleton !== null && motion.skeleton !== undefined) p.set('skeleton', motion.skeleton || 'own');
    if (view && view.entry && view.entry.id === state.entry.id) {
      p.set('t', String(view.time));
      if (view.speed !== 1) p.set('speed', String(view.speed));
      p.set('cam', view.cameraText());
      if (view.grid) p.set('grid', view.gridText());
    }
  }
  const query = p.toString();
  history.replaceState(null, '', query ? `?${query}` : location.pathname);
}

// ---------------------------------------------------------------------------------------
// Upload: one row per request. A .gltf goes together with the .bin and image files chosen
// with it; every other file is its own request.

function groupFiles(files) {
  const list = Array.from(files);
  const isGltf = (f) => /\.gltf$/i.test(f.name);
  const isCompanion = (f) => /\.(bin|png|jpe?g|ktx2|webp)$/i.test(f.name);
  if (!list.some(isGltf)) return list.map((f) => [f]);
  const together = list.filter((f) => isGltf(f) || isCompanion(f));
  return [together, ...list.filter((f) => !together.includes(f)).map((f) => [f])];
}

function upload(files) {
  for (const group of groupFiles(files)) send(group);
}

// The file a .gltf of the group names at a JSON pointer the API's error gave ("/buffers/0",
// "/images/1"), when it is a file of its own; else null.
async function missingFile(group, path) {
  const match = /^\/(buffers|images)\/(\d+)$/.exec(path || '');
  const gltf = group.find((f) => /\.gltf$/i.test(f.name));
  if (!match || !gltf) return null;
  try {
    const uri = JSON.parse(await gltf.text())[match[1]][Number(match[2])].uri;
    return typeof uri === 'string' && !uri.startsWith('data:') ? { gltf: gltf.name, name: decodeURIComponent(uri) } : null;
  } catch (e) { return null; }
}

// An upload refused for a file the .gltf needs and the user did not choose: said in words, with
// a button to choose it, which sends the group again with it.
function offerMissing(status, group, missing) {
  const input = make('input', { type: 'file', class: 'pick-missing', 'aria-label': `choose ${missing.name}` });
  input.hidden = true;
  const pick = make('button', { type: 'button', text: `Choose ${missing.name}…` });
  pick.addEventListener('click', () => input.click());
  input.addEventListener('change', () => {
    if (!input.files.length) return;
    status.closest('li').remove();
    send([...group, ...input.files]);
  });
  status.replaceChildren(`${missing.gltf} needs ${missing.name}, which was not chosen with it. `, pick, input);
}

function send(group) {
  const progress = make('progress', { max: '100', value: '0' });
  const status = make('span', { text: 'uploading…' });
  const row = make('li', {}, [make('span', { text: group.map((f) => f.name).join(' + ') }), progress, status]);
  $('#uploads').prepend(row);
  const form = new FormData();
  for (const file of group) form.append('file', file, file.name);
  const xhr = new XMLHttpRequest();
  xhr.open('POST', '/api/resources');
  if (token()) xhr.setRequestHeader('Authorization', `Bearer ${token()}`);
  xhr.upload.addEventListener('progress', (event) => {
    if (event.lengthComputable) progress.value = Math.round((100 * event.loaded) / event.total);
  });
  xhr.addEventListener('load', () => {
    progress.value = 100;
    let body = null;
    try { body = JSON.parse(xhr.responseText); } catch (e) { body = null; }
    if (xhr.status >= 200 && xhr.status < 300 && body) {
      const created = body.resources.filter((r) => r.status === 'created').length;
      const existing = body.resources.length - created;
      status.className = 'ok';
      status.replaceChildren();
      status.append(`${created ? `${created} created` : ''}${created && existing ? ', ' : ''}${existing ? `${existing} already catalogued` : ''}: `);
      body.resources.forEach((r, i) => {
        const link = make('a', { href: `?id=${r.id}`, text: `${kindOf(r)} ${r.name || r.crc32}` });
        link.addEventListener('click', (event) => { event.preventDefault(); openEntry(r.id); });
        if (i) status.append(', ');
        status.append(link);
      });
      if (body.skipped.length) status.append(` (skipped: ${body.skipped.map((s) => s.name).join(', ')})`);
      row.dataset.result = 'created';
      loadCatalogue();
      loadHealth();
    } else {
      status.className = 'error';
      text(status, body && body.error ? body.error.message : `upload failed (${xhr.status || 'no answer'})`);
      row.dataset.result = 'error';
      if (body && body.error) {
        missingFile(group, body.error.path).then((missing) => { if (missing) offerMissing(status, group, missing); });
      }
    }
  });
  xhr.addEventListener('error', () => {
    status.className = 'error';
    text(status, 'the upload could not reach animdex');
    row.dataset.result = 'error';
  });
  xhr.send(form);
}

// Names from the page: what POST /api/names takes, pasted or read from a file; once stored, the
// list and the open entry are read again, so every hash they name shows its name.
function setUpNames() {
  const area = $('#names-text'), status = $('#names-status');
  $('#names-file').addEventListener('change', async (event) => {
    const chosen = Array.from(event.target.files);
    const texts = await Promise.all(chosen.map((f) => f.text()));
    area.value = [area.value.trim(), ...texts].filter(Boolean).join('\n');
    event.target.value = '';
  });
  $('#names-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!area.value.trim()) { status.className = 'error'; text(status, 'paste or choose names first'); return; }
    try {
      const answer = await api('/api/names', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: area.value });
      status.className = 'ok';
      text(status, `${count(answer.added, 'name', 'names')} added${answer.known ? `, ${answer.known} known already` : ''}`);
      area.value = '';
      await loadCatalogue();
      if (state.entry) {
        const view = readUrl();
        await openEntry(state.entry.id, state.selected, state.window,
          { skeleton: view.skeleton, t: view.t, speed: view.speed, cam: view.cam, grid: view.grid, compare: view.compare });
      }
      status.dataset.done = String(Number(status.dataset.done || 0) + 1);
    } catch (e) {
      status.className = 'error';
      text(status, e.message);
    }
  });
}

function setUpUpload() {
  const drop = $('#drop');
  $('#file-input').addEventListener('change', (event) => { upload(event.target.files); event.target.value = ''; });
  for (const name of ['dragenter', 'dragover']) drop.addEventListener(name, (event) => { event.preventDefault(); drop.classList.add('over'); });
  for (const name of ['dragleave', 'drop']) drop.addEventListener(name, () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => { event.preventDefault(); upload(event.dataTransfer.files); });
  // a drop anywhere else must not navigate away
  window.addEventListener('dragover', (event) => event.preventDefault());
  window.addEventListener('drop', (event) => event.preventDefault());
}

// ---------------------------------------------------------------------------------------
// Catalogue

async function loadHealth() {
  try {
    const h = await api('/api/health');
    text($('#health'), `${count(h.counts.resources, 'entry', 'entries')}, ${count(h.counts.tracks, 'track', 'tracks')}, ${bytes(h.counts.bytes)} · animdex ${h.version}`);
  } catch (e) { text($('#health'), e.message); }
}

async function loadClasses() {
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
function exportQuery() {
  const p = new URLSearchParams();
  for (const [key, value] of Object.entries(state.filters)) if (value) p.set(key, value);
  return `/api/export?${p}`;
}

// The list's page: sorted by animdex (the whole catalogue, not the rows loaded), a cursor
// keeping the order from page to page.
function listQuery(cursor) {
  const p = new URLSearchParams({ limit: '50' });
  for (const [key, value] of Object.entries(state.filters)) if (value) p.set(key, value);
  p.set('sort', state.sort.key);
  p.set('order', state.sort.dir === 'ascending' ? 'asc' : 'desc');
  if (cursor) p.set('cursor', cursor);
  return `/api/resources?${p}`;
}

async function loadCatalogue(append = false) {
  const error = $('#catalogue-error');
  try {
    const page = await api(listQuery(append ? state.cursor : null));
    state.rows = append ? state.rows.concat(page.resources) : page.resources;
    state.cursor = page.next_cursor || null;
    state.total = page.total;
    // an entry the live stream announced while the list was read is in the list now
    dropListed();
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
function renderCatalogue() {
  const { key, dir } = state.sort;
  $('#catalogue tbody').replaceChildren(...state.rows.map((r, i) => {
    const handle = make('td', { class: 'handle', text: r.crc32 });
    // the clips of one file (a glTF's animations, a bundle's resources) read as one group
    const previous = state.rows[i - 1];
    const sameFile = previous && previous.filename && previous.filename === r.filename && previous.sha256 === r.sha256;
    if (r.crc32_name) handle.append(' ', make('small', { text: r.crc32_name }));
    const tr = make('tr', { tabindex: '0', 'data-id': String(r.id), ...(live.fresh.has(r.id) ? { class: 'new' } : {}) }, [
      make('td', { text: kindOf(r), title: r.class }), handle, make('td', { text: r.name || '' }), make('td', { text: r.family }),
      make('td', { text: String(r.track_count) }),
      make('td', { text: r.duration === null ? '' : `${r.duration} s` }), make('td', { text: bytes(r.size) }),
      make('td', { text: `${r.uploaded_at.replace('T', ' ').slice(0, 19)} UTC${r.uploaded_by ? ` by ${r.uploaded_by}` : ''}` }),
      make('td', { class: sameFile ? 'file same-file' : 'file', text: sameFile ? '〃 same file' : (r.filename || ''), title: r.filename || '' }),
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
  text($('#count'), state.rows.length === total ? `${count(total, 'entry', 'entries')}`
    : `${state.rows.length} of ${total.toLocaleString('en')} shown`);
}

function setUpCatalogue() {
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

// ---------------------------------------------------------------------------------------
// The live catalogue: GET /api/events, read with fetch (an EventSource cannot send the token),
// resumed after the last event seen. New entries the filter lets through join the list, marked
// new until they have been on screen for a few seconds; while the user is scrolled away from the
// top of the catalogue they wait behind an "N new" notice instead of moving the rows under the
// pointer. A deleted or redecoded entry that is open says so.

const SEEN_AFTER_MS = 4000;
const live = {
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
function listWants(entry) {
  const q = state.filters.q.toLowerCase();
  return !q || [entry.name, entry.class, entry.filename, entry.note].some((v) => v && v.toLowerCase().includes(q));
}

// Is the top of the catalogue out of sight?
const scrolledAway = () => $('#catalogue').getBoundingClientRect().top < 0;

function showWaiting() {
  const notice = $('#new-notice');
  notice.hidden = !live.waiting.length;
  text(notice, `${count(live.waiting.length, 'new entry', 'new entries')}: show`);
}

// The waiting entries the list holds already (it was read again since they were announced: the
// tab that uploaded them reads it at once) wait no longer.
function dropListed() {
  const listed = new Set(state.rows.map((r) => r.id));
  live.waiting = live.waiting.filter((entry) => !listed.has(entry.id));
  showWaiting();
}

function takeWaiting() {
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
function drawSoon() {
  if (drawTimer) return;
  drawTimer = setTimeout(() => {
    drawTimer = null;
    if (live.waiting.length && !scrolledAway()) takeWaiting(); else { showWaiting(); renderCatalogue(); }
    shownEvents();
  }, 100);
}
function healthSoon() {
  if (!healthTimer) healthTimer = setTimeout(() => { healthTimer = null; loadHealth(); }, 1000);
}

function entryEvent(kind, data) {
  const entry = data.entry;
  if (kind === 'created') {
    healthSoon();
    if (!entry || !listWants(entry) || state.rows.some((r) => r.id === entry.id) || live.waiting.some((r) => r.id === entry.id)) return;
    live.waiting.push(entry);
    drawSoon();
  } else if (kind === 'deleted') {
    healthSoon();
    state.rows = state.rows.filter((r) => r.id !== data.id);
    live.waiting = live.waiting.filter((r) => r.id !== data.id);
    drawSoon();
    if (state.entry && state.entry.id === data.id) {
      const gone = $('#entry-gone');
      text(gone, `This entry was deleted at ${data.at.replace('T', ' ').slice(0, 19)}: what is shown is what was loaded before.`);
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
function eventBlock(block) {
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
function shownEvents() {
  if (live.last !== null) document.body.dataset.eventsShown = live.last;
}

function followEvents() {
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

function setUpLive() {
  $('#new-notice').addEventListener('click', () => {
    takeWaiting();
    $('#catalogue-section').scrollIntoView({ block: 'start' });
  });
  window.addEventListener('scroll', () => { if (live.waiting.length && !scrolledAway()) takeWaiting(); }, { passive: true });
  $('#reload-entry').addEventListener('click', () => { if (state.entry) openEntry(state.entry.id, state.selected, state.window); });
}

// ---------------------------------------------------------------------------------------
// Entry view

async function openEntry(id, selected = null, window = null, restore = {}) {
  let entry;
  try { entry = await api(`/api/resources/${id}`); } catch (e) {
    text($('#catalogue-error'), `entry ${id}: ${e.message}`);
    $('#catalogue-error').hidden = false;
    return;
  }
  if (state.motion && state.motion.view) state.motion.view.pause();
  state.entry = entry;
  state.time = null;
  if (live.fresh.delete(entry.id)) { // opened: seen
    const row = document.querySelector(`#catalogue tbody tr[data-id="${entry.id}"]`);
    if (row) row.classList.remove('new');
  }
  $('#entry-gone').hidden = true;
  $('#entry-redecoded').hidden = true;
  const tracks = entry.tracks || [];
  state.selected = (selected || [0]).filter((n) => n < tracks.length);
  state.window = window;
    const section = $('#entry');
  section.hidden = false;
  const readoutElement = $('#readout');
  delete readoutElement.dataset.t;
  delete readoutElement.dataset.values;
  text(readoutElement, 'Move the pointer over the chart to read exact values.');
  text($('#entry-title'), `${kindOf(entry)} ${entry.name || entry.crc32}`);
  const summary = [
    ['Handle', `${handleText(entry)} (from ${entry.crc32_source})`], ['Family', entry.family],
    ['File', `${entry.filename || ''} (${bytes(entry.size)})`], ['Duration', entry.duration === null ? '' : `${entry.duration} s`],
    ['Uploaded', `${entry.uploaded_at}${entry.uploaded_by ? ` by ${entry.uploaded_by}` : ''}`], ['Note', entry.note || ''],
    ['SHA-256', entry.sha256],
  ];
    $('#entry-summary').replaceChildren(...summary.filter(([, v]) => v).flatMap(([k, v]) => [make('dt', { text: k }), make('dd', { text: v })]));
  $('#raw-link').href = `/api/resources/${id}/raw`;
  $('#gltf-link').href = `/api/resources/${id}/export`;
  const assumed = $('#assumed');
  assumed.hidden = !entry.assumed.length;
  text(assumed, entry.assumed.length ? `Assumed: ${entry.assumed.join(' · ')}` : '');
  text($('#structure'), JSON.stringify(entry.structure, null, 2));
  $('#tracks tbody').replaceChildren(...groupedByBone(tracks).flatMap(([bone, group]) => [
    ...(bone === null ? [] : [make('tr', { class: 'group' }, [make('th', { colspan: '7', scope: 'rowgroup', text: `${bone} · ${count(group.length, 'track', 'tracks')}` })])]),
    ...group.map(trackRow)]));
  // a skeleton has a tree and no curves: its bones instead of an empty chart
  $('#chart-part').hidden = !tracks.length;
  renderVersions(entry);
  renderNative(entry);
  state.compare = null;
  if (restore.compare) await startCompare(Number(restore.compare)); else renderCompare();
  writeUrl();
  await drawChart();
  await showMotion(entry, restore);
  // a link to a view lands on the view; an entry opened from the list, at its top
  const viewBox = $('#view-box');
  if (restore.cam && !viewBox.hidden) viewBox.scrollIntoView({ block: 'center' });
  else section.scrollIntoView({ block: 'start' });
}

// The tracks in groups of the bone (the target) they move, in the order the bones first come;
// [[null, tracks]] when they all move one target or none (no heading needed).
function groupedByBone(tracks) {
  const groups = new Map();
  for (const t of tracks) {
    const target = t.target || {};
    const label = target.handle_name || target.name || (target.object !== undefined ? `object ${target.object}` : '');
    const key = `${target.schema || ''} ${target.object} ${label}`;
    if (!groups.has(key)) groups.set(key, [label || 'no target', []]);
    groups.get(key)[1].push(t);
  }
  return groups.size > 1 ? [...groups.values()] : [[null, tracks]];
}

// One track's row: its chart box, number, name, type, interpolation, keys and time range.
function trackRow(t) {
  const box = make('input', { type: 'checkbox', 'aria-label': `chart track ${t.n}` });
  box.checked = state.selected.includes(t.n);
  box.addEventListener('change', () => {
    state.selected = box.checked ? [...state.selected, t.n].sort((a, b) => a - b) : state.selected.filter((n) => n !== t.n);
    const view = state.motion && state.motion.view;
    if (box.checked && view && view.entry) { // its bone chosen, in the view and the list
      const i = view.nodeOfTrack(t.n);
      if (i >= 0) { view.select(i); markBone(i); }
    }
    drawChart();
  });
  const target = t.target && t.target.handle_name ? ` (${t.target.handle_name})` : '';
  return make('tr', { 'data-n': String(t.n) }, [make('td', {}, [box]), make('td', { text: String(t.n) }), make('td', { text: t.name + target }),
      make('td', { text: t.kind === 'events' ? 'events' : `${t.type}${t.array_size > 1 ? `[${t.array_size}]` : ''}` }),
      make('td', {
        text: `${t.interpolation}${t.semantic === 'NORMALIZED_QUATERNION' ? ' (quaternion)' : ''}`
          + (t.before_first_key === "last key's value" ? '; last key\'s value before the first key' : '')
          + (t.w_between_keys ? '; w = 1 between keys' : ''),
      }),
      make('td', { text: String(t.key_count) }), make('td', { text: `${t.time_range[0]} – ${t.time_range[1]} s` })]);
}

// ---------------------------------------------------------------------------------------
// Versions (the other entries of this handle and class) and comparing with another entry.

function renderVersions(entry) {
  const versions = entry.versions || [];
  $('#versions-box').hidden = !versions.length;
  $('#versions tbody').replaceChildren(...versions.map((v) => {
    const link = make('a', { href: `?id=${v.id}`, text: `${v.id}${v.name ? ` ${v.name}` : ''}` });
    link.addEventListener('click', (event) => { event.preventDefault(); openEntry(v.id); });
    const compare = make('button', { type: 'button', text: 'Compare', 'data-compare': String(v.id) });
    compare.addEventListener('click', () => startCompare(v.id).then(drawChart));
    return make('tr', {}, [make('td', {}, [link]), make('td', { text: v.uploaded_at.replace('T', ' ').slice(0, 19) }),
      make('td', { text: v.uploaded_by || '' }), make('td', { text: v.filename || '' }),
      make('td', { text: String(v.decoder_version) }), make('td', {}, [compare])]);
  }));
}

// "Download for the game": the entry as the game's own bytes (GET .../native), laid out like a
// file of the game's: the one an animdex export came from (the .glb brought back from
// Blender), a Zouna version of the same handle, or the entry itself. The report says what was
// kept byte for byte and what was written.
// The game's own bytes of a kind animdex writes back (a Burnout resource read out of a bundle
// comes back as its whole bundle, rebuilt).
const writtenBack = (cls) => /_Z$/.test(cls || '')
  || cls === 'VehicleAnimation' || cls === 'BodyPartRemapData' || cls === 'RadientAnimationClip';
const gameFile = (e) => ['zouna', 'burnout', 'radient'].includes(e.family) && writtenBack(e.class);

function nativeTemplates(entry) {
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

async function showNativeReport() {
  const entry = state.entry;
  const select = $('#native-template');
  const report = $('#native-report');
  const query = `template=${select.value}`;
  $('#native-link').href = `/api/resources/${entry.id}/native?${query}`;
  report.removeAttribute('data-done');
  text(report, 'checking…');
  try {
    const answer = await api(`/api/resources/${entry.id}/native?${query}&summary=1`);
    if (state.entry !== entry) return;
    const kept = answer.tracks.filter((t) => t.kept).length;
    const largest = Math.max(0, ...answer.tracks.map((t) => t.largest_difference || 0));
    text(report, `${answer.file_name}, ${bytes(answer.length)}: ${count(kept, 'track', 'tracks')} kept byte for byte, `
      + `${count(answer.tracks.length - kept, 'track', 'tracks')} written`
      + (answer.kept_from_template.length ? `, ${count(answer.kept_from_template.length, 'track', 'tracks')} taken from the game file` : '')
      + (largest ? `; largest difference ${largest.toPrecision(3)}` : '')
      + (answer.bundle ? `; the whole bundle rebuilt around resource ${answer.bundle.resource_id}`
        + (answer.bundle.moved ? ` (the blocks after it moved ${bytes(Math.abs(answer.bundle.moved))})` : ', nothing else moved') : ''));
    report.dataset.done = 'ok';
  } catch (e) {
    if (state.entry !== entry) return;
    text(report, `cannot be written for the game: ${e.message}`);
    report.dataset.done = 'refused';
  }
}

function renderNative(entry) {
  const templates = nativeTemplates(entry);
  $('#native-box').hidden = !templates.length;
  if (!templates.length) return;
  $('#native-template').replaceChildren(...templates.map((t) => make('option', { value: String(t.id), text: t.label })));
  $('#native-template').onchange = showNativeReport;
  showNativeReport();
}

// The largest difference of a pair as text, and as a number to sort by.
const largestOf = (pair) => (pair.largest ? Math.max(...pair.largest) : NaN);
const differenceText = (pair) => {
  if (!pair) return 'only here';
  if (pair.reason) return pair.reason;
  if (pair.identical) return '0 (identical keys)';
  const i = pair.largest.indexOf(Math.max(...pair.largest));
  return `${pair.largest[i].toPrecision(4)}${pair.compared_as.startsWith('angle') ? ' rad' : ''} at ${pair.at[i].toPrecision(4)} s`;
};

async function startCompare(id) {
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
function ghost() {
  const view = state.motion && state.motion.view;
  if (view && view.entry && state.entry && view.entry.id === state.entry.id) view.setGhost(state.compare ? state.compare.id : null);
}

function renderCompare() {
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
    row.dataset.difference = on && pair && pair.largest ? String(largestOf(pair)) : '';
  }
}

function setUpCompare() {
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

// ---------------------------------------------------------------------------------------
// The 3D view (view3d.js): the entry's own rig, or a skeleton /skeletons ranks.

let urlTimer = null;
const writeUrlSoon = () => { clearTimeout(urlTimer); urlTimer = setTimeout(writeUrl, 250); };

async function motionView() {
  if (state.motion) return state.motion;
  try {
    const module = await import('/view3d.js');
    const { Timeline } = await import('/timeline.js');
    if (!module.webglAvailable()) {
      state.motion = { off: 'This browser has no WebGL, so the 3D view is off; the chart and the rest of the page work as ever.' };
    } else {
      state.motion = { skeleton: null };
      state.motion.view = new module.MotionView({
        api,
        auth: () => authorised(),
        window: () => state.window || trackRange(),
        onTime: (t, exact) => {
          state.time = t;
          drawCursor();
          if (state.motion.timeline) state.motion.timeline.drawPlayhead();
          if (exact) { readoutAt(t).catch((e) => text($('#readout'), e.message)); writeUrlSoon(); }
        },
        onSelectTracks: selectTracks,
        onSelectNode: markBone,
        onMeshNote: motionMessage,
        onChange: writeUrlSoon,
      });
      state.motion.timeline = new Timeline({
        view: () => state.motion.view,
        window: () => state.window || trackRange(),
        // each charted track's key times; null for more than the pixels tell apart
        tracks: () => state.selected.map((n) => ({ n, times: state.keyTimes.has(n) ? state.keyTimes.get(n) : [] })),
        onLoop: (range) => { state.motion.view.setRange(range); writeUrlSoon(); },
      });
    }
  } catch (e) {
    state.motion = { off: `The 3D view could not start (${e.message}); is three.js installed (libjs-three, animdexd --three)?` };
  }
  return state.motion;
}

// The tracks charted: their boxes ticked in the table, the chart drawn again.
function selectTracks(tracks) {
  if (!tracks.length) return;
  state.selected = [...tracks];
  for (const box of document.querySelectorAll('#tracks tbody input')) {
    box.checked = state.selected.includes(Number(box.closest('tr').dataset.n));
  }
  drawChart();
}

// ---------------------------------------------------------------------------------------
// The bone list: the rig the view shows as a tree (its names, or its handles as the
// catalogue's name lists name them), found by name, "animated only" keeping the bones that
// tracks move (and the bones above them, dimmed, so that the tree holds). Choosing a bone
// selects its joint in the view and charts its tracks; choosing a joint or ticking a track
// chooses its bone here.

function renderBones() {
  const view = state.motion && state.motion.view;
  const box = $('#bones-box');
  if (!view || !view.entry || !view.nodes.length || view.entry.id !== (state.entry && state.entry.id)) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const nodes = view.nodes;
  const filter = $('#bone-filter').value.trim().toLowerCase();
  const animatedOnly = $('#animated-only').checked;
  const wanted = nodes.map((n, i) => (!filter || String(n.name || '').toLowerCase().includes(filter))
    && (!animatedOnly || view.tracksOf.has(i)));
  // what is shown: the bones wanted and every bone above them (one walk up each)
  const shown = new Array(nodes.length).fill(false);
  nodes.forEach((n, i) => { for (let j = wanted[i] ? i : -1; j >= 0 && !shown[j]; j = nodes[j].parent) shown[j] = true; });
  const items = new Map(), roots = [];
  nodes.forEach((n, i) => {
    if (!shown[i]) return;
    const tracks = view.tracksOf.get(i) || [];
    const li = make('li', { role: 'treeitem', 'data-node': String(i), 'aria-selected': String(view.selected === i) });
    const label = make('button', { type: 'button', class: wanted[i] ? 'bone' : 'bone context', text: String(n.name) });
    if (tracks.length) label.append(make('span', { class: 'bone-tracks', text: ` ${count(tracks.length, 'track', 'tracks')}` }));
    label.addEventListener('click', () => chooseBone(i));
    li.append(label);
    items.set(i, li);
  });
  // children in the order of the rig, under their parent; a bone whose parent is hidden is a root
  nodes.forEach((n, i) => {
    const li = items.get(i);
    if (!li) return;
    const parent = n.parent >= 0 ? items.get(n.parent) : null;
    if (!parent) { roots.push(li); return; }
    let group = parent.querySelector(':scope > ul');
    if (!group) { group = make('ul', { role: 'group' }); parent.append(group); }
    group.append(li);
  });
  $('#bones').replaceChildren(...roots);
  text($('#bone-count'), filter || animatedOnly ? `(${wanted.filter(Boolean).length} of ${nodes.length})` : `(${nodes.length})`);
}

// Bone i chosen in the list: its joint in the view, its tracks on the chart.
function chooseBone(i) {
  const view = state.motion.view;
  view.select(i);
  markBone(i);
  selectTracks(view.tracksOf.get(i) || []);
}

// Bone i marked as the chosen one in the list (-1: none), brought into sight.
function markBone(i) {
  for (const li of document.querySelectorAll('#bones li[aria-selected="true"]')) li.setAttribute('aria-selected', 'false');
  const li = document.querySelector(`#bones li[data-node="${i}"]`);
  if (!li) return;
  li.setAttribute('aria-selected', 'true');
  li.querySelector('button').scrollIntoView({ block: 'nearest' });
}

function setUpBones() {
  $('#bone-filter').addEventListener('input', renderBones);
  $('#animated-only').addEventListener('change', renderBones);
}

function motionMessage(message) {
  const element = $('#view-message');
  element.hidden = !message;
  text(element, message || '');
}

async function showMotion(entry, restore = {}) {
  const motion = await motionView();
  const parts = ['#view-controls', '#view-box', '#timeline', '#timeline-keys', '#playback', '#joints-box'];
  const visible = (on) => { for (const p of parts) $(p).hidden = !on; };
  if (motion.off) { visible(false); motionMessage(motion.off); return; }
  motionMessage('');
  const options = [];
  let ranked = null;
  if (entry.rig) options.push({ value: 'own', label: `its own rig (${entry.rig.length} nodes)` });
  try {
    ranked = await api(`/api/resources/${entry.id}/skeletons`);
  } catch (e) { ranked = { targets: 0, skeletons: [] }; }
  for (const s of ranked.skeletons) {
    options.push({ value: String(s.id), label: `${s.name || s.crc32} (${s.class}, entry ${s.id}): ${s.matched} of ${ranked.targets}`, skeleton: s });
  }
  // the catalogue's other skeletons, which have none of its targets: choosable, said so
  for (const cls of ['Skel_Z', 'Skeleton']) {
    const page = await api(`/api/resources?class=${cls}&limit=20`).catch(() => ({ resources: [] }));
    for (const s of page.resources) {
      if (s.id === entry.id || options.some((o) => o.value === String(s.id))) continue;
      options.push({ value: String(s.id), label: `${s.name || s.crc32} (${s.class}, entry ${s.id}): none of its targets` });
    }
  }
  options.push({ value: 'none', label: 'none' });
  // an entry no skeleton fits is not posed on an unrelated one: the view waits for a choice
  const fits = entry.rig || ranked.skeletons.some((s) => s.matched > 0);
  let chosen = restore.skeleton || (fits ? options[0].value : 'none');
  if (!options.some((o) => o.value === chosen)) {
    options.splice(options.length - 1, 0, { value: chosen, label: `entry ${chosen}` });
  }
  const select = $('#skeleton-choice');
  select.replaceChildren(...options.map((o) => make('option', { value: o.value, text: o.label })));
  select.value = chosen;
  // another skeleton keeps the time shown (the frame a user was looking at)
  select.onchange = () => {
    const view = state.motion.view;
    chooseSkeleton(entry, select.value, ranked, { t: view.entry ? view.time : state.time });
  };
  visible(true);
  await chooseSkeleton(entry, chosen, ranked, restore);
  await listClips(entry);
}

// The other animations of the same upload (a glTF file's clips): one switches to another in
// the view, keeping its time and camera.
async function listClips(entry) {
  const box = $('#clip-box'), select = $('#clip-choice');
  box.hidden = true;
  if (!entry.filename) return;
  const page = await api(`/api/resources?q=${encodeURIComponent(entry.filename)}&limit=200`).catch(() => ({ resources: [] }));
  const clips = page.resources.filter((r) => r.sha256 === entry.sha256).sort((a, b) => a.part - b.part);
  if (clips.length < 2) return;
  select.replaceChildren(...clips.map((c) => make('option', { value: String(c.id), text: `${c.name || c.crc32} (entry ${c.id})` })));
  select.value = String(entry.id);
  select.onchange = () => {
    const view = state.motion.view;
    openEntry(Number(select.value), null, state.window, {
      skeleton: state.motion.skeleton === '' ? 'own' : state.motion.skeleton, t: view.time, cam: view.cameraText(),
      grid: view.grid ? view.gridText() : null,
    });
  };
  box.hidden = false;
}

async function chooseSkeleton(entry, value, ranked, restore) {
  const view = state.motion.view;
  const coverage = $('#coverage');
  const box = ['#view-box', '#timeline', '#timeline-keys', '#playback', '#joints-box'];
  view.pause();
  state.motion.skeleton = value === 'own' ? '' : value === 'none' ? 'none' : value;
  if (value === 'none' || (value === 'own' && !entry.rig)) {
    for (const b of box) $(b).hidden = true;
    text(coverage, '');
    view.entry = null;
    renderBones();
    motionMessage(entry.rig || ranked.skeletons.some((s) => s.matched > 0) ? 'No rig chosen: the view is off.'
      : 'No skeleton in the catalogue has this entry\'s targets, and it has no rig of its own: upload its skeleton (a Skel_Z, or a glTF with the nodes) to see it move, or choose one under Skeleton to pose it anyway.');
    view.entry = null;
    writeUrl();
    return;
  }
  for (const b of box) $(b).hidden = false;
  motionMessage('');
  if (restore.speed) { view.speed = Number(restore.speed) || 1; $('#speed').value = String(view.speed); }
  try {
    await view.show(entry, {
      skeleton: value === 'own' ? null : Number(value),
      time: restore.t !== undefined && restore.t !== null ? Number(restore.t) : (state.window || trackRange())[0],
      camera: restore.cam,
      grid: restore.grid,
    });
  } catch (e) {
    motionMessage(`The pose could not be made: ${e.message}`);
    return;
  }
  const answer = view.answer;
  const moved = new Set(answer.tracks.filter((t) => t.node !== null).map((t) => t.node)).size;
  if (value === 'own') {
    text(coverage, `its own rig: ${answer.nodes.length} nodes, ${moved} moved by its tracks`);
    if (!moved && (entry.tracks || []).length) {
      motionMessage(`Its ${count(entry.tracks.length, 'track moves', 'tracks move')} no node of its rig`
        + (entry.family === 'burnout' ? ' (a Vehicle Animation\'s state animations move the parts their states name, and these name none the rig has)' : '')
        + ': it is drawn at rest.');
    }
  } else {
    const s = ranked.skeletons.find((k) => String(k.id) === value);
    const targets = ranked.targets;
    text(coverage, `${s ? s.matched : moved} of ${targets} ${entry.family === 'zouna' ? 'bones' : 'targets'} (${answer.nodes.length} nodes)`);
    if (!moved) motionMessage(`This skeleton has none of the animation's ${entry.family === 'zouna' ? 'bones' : 'targets'}: it is drawn at rest.`);
  }
  coverage.dataset.matched = String(moved);
  renderBones();
  if (state.compare) await view.setGhost(state.compare.id);
  state.time = view.time;
  drawCursor();
  writeUrl();
}

function trackRange() {
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

const palette = ['#1f6feb', '#d1242f', '#1a7f37', '#9a6700', '#8250df', '#bf3989', '#0a7ea4', '#57606a'];
// A colour per curve, distinct however many: the palette, then hues a golden angle apart.
const colourOf = (i) => (i < palette.length ? palette[i] : `hsl(${Math.round((i * 137.508) % 360)}, 62%, 44%)`);

// A unit quaternion (x, y, z, w) as Euler angles in degrees, X then Y then Z (three.js's 'XYZ':
// the rotation matrix's terms, as Euler.setFromRotationMatrix reads them).
function eulerDegrees([x, y, z, w]) {
  const n = Math.hypot(x, y, z, w) || 1;
  [x, y, z, w] = [x / n, y / n, z / n, w / n];
  const m11 = 1 - 2 * (y * y + z * z), m12 = 2 * (x * y - z * w), m13 = 2 * (x * z + y * w);
  const m22 = 1 - 2 * (x * x + z * z), m23 = 2 * (y * z - x * w), m32 = 2 * (y * z + x * w), m33 = 1 - 2 * (x * x + y * y);
  const ey = Math.asin(Math.min(Math.max(m13, -1), 1));
  const [ex, ez] = Math.abs(m13) < 0.9999999 ? [Math.atan2(-m23, m33), Math.atan2(-m12, m11)] : [Math.atan2(m32, m22), 0];
  return [ex, ey, ez].map((a) => (a * 180) / Math.PI);
}
const isRotation = (t) => t.semantic === 'NORMALIZED_QUATERNION' && t.array_size === 1;
// What a curve is called: the bone (its name, or its handle's), the channel, the component.
const boneOf = (t) => (t.target && (t.target.handle_name || t.target.name)) || `track ${t.n}`;
const channelOf = (t) => t.property_name || (t.kind === 'events' ? 'events' : 'value');
// A number as a person writes it (at most 4 decimals); the exact one is on hover.
const readable = (v) => (typeof v === 'number' ? String(Number(v.toFixed(4))) : String(v));
const componentNames = (t) => {
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
async function drawChart() {
  const canvas = $('#chart');
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
  if (failure) throw failure;
}

// A track's keys, fetched once an entry (they do not change with the window); null for a track
// of more keys than its markers could show apart, unless the window holds few of them.
async function keysOf(entry, t, lo, hi) {
  const cache = state.keysCache && state.keysCache.entry === entry.id ? state.keysCache : (state.keysCache = { entry: entry.id, keys: new Map() });
  if (cache.keys.has(t.n)) return cache.keys.get(t.n);
  const span = Math.max(t.time_range[1] - t.time_range[0], 1e-9);
  const inWindow = t.key_count * Math.min(1, (hi - lo) / span);
  if (t.key_count > 20000 && inWindow > 2000) return null; // too dense to mark: the curve says it
  const keys = await api(`/api/resources/${entry.id}/tracks/${t.n}/keys`);
  cache.keys.set(t.n, keys);
  return keys;
}

// Key markers where they are apart on screen: the first key of each few pixels of the window.
function apart(points, lo, hi, width) {
  const shown = [], cell = Math.max((hi - lo) / Math.max(width / 4, 1), 0);
  let last = -Infinity;
  for (const p of points) {
    if (p.x < lo || p.x > hi) continue;
    if (p.x - last >= cell) { shown.push(p); last = p.x; }
  }
  return shown;
}

async function drawChartNow() {
  const entry = state.entry;
  if (!entry) return;
  const [lo, hi] = state.window || trackRange();
  $('#from').value = lo; $('#to').value = hi;
  const selected = state.selected.map((n) => entry.tracks[n]).filter(Boolean);
  const csv = selected.find((t) => t.kind !== 'events');
  const csvLink = $('#csv-link');
  csvLink.hidden = !csv;
  if (csv) csvLink.href = `/api/resources/${entry.id}/tracks/${csv.n}/sample?from=${lo}&to=${hi}&count=1001&format=csv`;
  const datasets = [];
  const events = [];
  let colour = 0;
  state.keyTimes = new Map();
  // every track's answers asked for at once, then the curves made in the table's order
  const fetched = await Promise.all(selected.map((t) => {
    if (t.kind === 'events') return api(`/api/resources/${entry.id}/tracks/${t.n}/sample?from=${lo}&to=${hi + 1e-6}`);
    const pair = state.compare && state.compare.byTrack.get(t.n);
    return Promise.all([
      api(`/api/resources/${entry.id}/tracks/${t.n}/sample?from=${lo}&to=${hi}&count=500`),
      keysOf(entry, t, lo, hi),
      pair && !pair.reason
        ? api(`/api/resources/${state.compare.id}/tracks/${pair.b}/sample?from=${lo}&to=${hi}&count=500`).catch(() => null)
        : null,
    ]);
  }));
  for (const [index, t] of selected.entries()) {
    if (t.kind === 'events') {
      const answer = fetched[index];
      datasets.push({ label: `${t.n} ${t.name}`, data: answer.events.map((e) => ({ x: e.time, y: 0, event: e })), showLine: false,
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
      const label = `${boneOf(t)} ${channelOf(t)} ${name}${euler ? ' (°)' : ''}`;
      datasets.push({ label, track: t.n, component: c, yAxisID: axis, data: samples.times.map((x, i) => ({ x, y: toNumber(samples.values[i][c]) })),
        showLine: true, pointRadius: 0, borderWidth: 1.5, borderColor: color, backgroundColor: color, tension: 0 });
      if (other) {
        datasets.push({ label: `${label} (entry ${state.compare.id})`, yAxisID: axis, data: other.times.map((x, i) => ({ x, y: toNumber(other.values[i][c]) })),
          showLine: true, pointRadius: 0, borderWidth: 1.5, borderDash: [6, 4], borderColor: color, backgroundColor: color, tension: 0, compared: true });
      }
      const keyPoints = apart(keys.times.map((x, i) => ({ x, y: toNumber(keys.values[i][c]) })), lo, hi, width);
      datasets.push({ label: `${label} keys`, yAxisID: axis, data: keyPoints, showLine: false, pointRadius: 3.5, pointStyle: 'rectRot',
        borderColor: color, backgroundColor: '#fff' });
    });
  }
  $('#events').replaceChildren(...events.map((e) => make('li', { text: e })));
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
        legend: { labels: { filter: (item) => !item.text.endsWith(' keys'), boxWidth: 12 } },
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
  if (state.time !== null && Number.isFinite(state.time)) readoutAt(state.time).catch((e) => text($('#readout'), e.message));
}

// The view's time as a line across the chart.
// The chart's cursor (the view's time) on a canvas of its own over the chart, so that a frame of
// playback moves one line and never draws the curves again.
function drawCursor(chart = state.chart) {
  const overlay = $('#chart-cursor');
  if (!chart || !chart.canvas || !chart.chartArea || !overlay) return;
  const source = chart.canvas;
  if (overlay.width !== source.width || overlay.height !== source.height) {
    overlay.width = source.width;
    overlay.height = source.height;
  }
  const g = overlay.getContext('2d');
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.clearRect(0, 0, overlay.width, overlay.height);
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
const timeCursor = { id: 'timeCursor', afterDraw: (chart) => drawCursor(chart) };

// The readout asks the API for the exact values at the time under the pointer (or the view's).
// The chart's time under a pointer event (from the canvas's own box, so that an event whose
// target is another element, a release outside the chart, says where on the chart it is).
const chartTime = (event) => {
  const chart = state.chart;
  const box = $('#chart').getBoundingClientRect();
  const x = chart ? chart.scales.x.getValueForPixel(event.clientX - box.left) : NaN;
  return Number.isFinite(x) ? Math.min(Math.max(x, chart.scales.x.min), chart.scales.x.max) : null;
};

async function readout(event) {
  const t = chartTime(event);
  if (t !== null) await readoutAt(t);
}

async function readoutAt(t) {
  const chart = state.chart, entry = state.entry;
  if (!chart || !entry) return;
  const token = ++state.readoutToken;
  const lines = [];
  const values = {};
  let shown = t;
  for (const n of state.selected) {
    const track = entry.tracks[n];
    if (!track || track.kind === 'events') continue;
    const answer = await api(`/api/resources/${entry.id}/tracks/${n}/sample?t=${t}`);
    shown = answer.times[0];
    values[n] = answer.values[0];
    let line = `${boneOf(track)} ${channelOf(track)} (track ${n}): ${JSON.stringify(answer.values[0])}`;
    if (isRotation(track)) line += ` = ${eulerDegrees(answer.values[0]).map(readable).join('°, ')}° (X, Y, Z)`;
    // comparing: the other version's value there, and the difference
    const pair = state.compare && state.compare.byTrack.get(n);
    if (pair && !pair.reason) {
      const there = await api(`/api/resources/${state.compare.id}/tracks/${pair.b}/sample?t=${shown}`).catch(() => null);
      const a = [answer.values[0]].flat(), b = there ? [there.values[0]].flat() : [];
      if (there && a.length === b.length) {
        line += `; entry ${state.compare.id}: ${JSON.stringify(there.values[0])}, difference ${JSON.stringify(a.map((v, i) => Number(v) - Number(b[i])))}`;
      }
    }
    lines.push(line);
  }
  if (token !== state.readoutToken) return; // a newer move won
  const element = $('#readout');
  element.dataset.t = String(shown);
  element.dataset.values = JSON.stringify(values);
  element.title = `t = ${shown} s`; // the exact time on hover; the text as a person writes it
  text(element, `t = ${readable(shown)} s\n${lines.join('\n')}`);
}

// With a token, downloads go through fetch (links cannot send an Authorization header).
async function download(event) {
  if (!token()) return; // a plain link works
  event.preventDefault();
  const link = event.currentTarget;
  const response = await fetch(link.href, { headers: authorised() });
  if (!response.ok) { text($('#readout'), `download failed: ${response.status}`); return; }
  const disposition = response.headers.get('Content-Disposition') || '';
  const match = /filename="([^"]+)"/.exec(disposition);
  const url = URL.createObjectURL(await response.blob());
  const save = make('a', { href: url, download: match ? match[1] : 'samples.csv' });
  document.body.append(save);
  save.click();
  save.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

function setUpEntry() {
  $('#rotation-view').addEventListener('click', () => {
    state.euler = !state.euler;
    const button = $('#rotation-view');
    button.setAttribute('aria-pressed', String(state.euler));
    text(button, state.euler ? 'Rotations: Euler degrees' : 'Rotations: quaternions');
    drawChart();
  });
  $('#raw-link').addEventListener('click', download);
  $('#csv-link').addEventListener('click', download);
  $('#gltf-link').addEventListener('click', download);
  $('#export-link').addEventListener('click', download);
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
  $('#chart').addEventListener('pointerdown', (event) => {
    scrubbing = true;
    clearTimeout(pending);
    $('#chart').setPointerCapture?.(event.pointerId);
    scrub(event);
  });
  window.addEventListener('pointerup', (event) => {
    if (!scrubbing) return;
    scrubbing = false;
    cancelAnimationFrame(frame);
    scrub(event);
  });
  $('#chart').addEventListener('pointermove', (event) => {
    clearTimeout(pending);
    if (scrubbing) {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => scrub(event, false));
      return;
    }
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
  $('#delete-entry').addEventListener('click', async () => {
    if (!state.entry || !confirm(`Delete entry ${state.entry.id}?`)) return;
    await api(`/api/resources/${state.entry.id}`, { method: 'DELETE' });
    state.entry = null;
    $('#entry').hidden = true;
    writeUrl();
    loadCatalogue();
    loadHealth();
  });
}

async function start() {
  const view = readUrl();
  // the chart's text and lines in the page's colours (dark where the system asks for it)
  const css = getComputedStyle(document.documentElement);
  if (window.Chart) {
    Chart.defaults.color = css.getPropertyValue('--muted').trim() || Chart.defaults.color;
    Chart.defaults.borderColor = css.getPropertyValue('--line').trim() || Chart.defaults.borderColor;
  }
  const field = $('#token');
  field.value = token();
  field.addEventListener('change', () => {
    if (field.value.trim()) localStorage.setItem('animdex-token', field.value.trim());
    else localStorage.removeItem('animdex-token');
    loadHealth(); loadClasses(); loadCatalogue(); followEvents();
  });
  setUpUpload();
  setUpNames();
  setUpCatalogue();
  setUpEntry();
  setUpCompare();
  setUpBones();
  setUpLive();
  followEvents(); // first, so that nothing falls between the list and the stream
  await Promise.all([loadHealth(), loadClasses(), loadCatalogue()]);
  if (view.id) {
    const window = view.from !== null && view.to !== null ? [Number(view.from), Number(view.to)] : null;
    await openEntry(view.id, view.tracks ? view.tracks.split(',').map(Number) : null, window,
      { skeleton: view.skeleton, t: view.t, speed: view.speed, cam: view.cam, grid: view.grid, compare: view.compare });
  }
  document.body.dataset.ready = 'true';
}

document.addEventListener('DOMContentLoaded', () => { start(); });
