// state.js: what the page shows, and the URL that holds it: ?q=&class=&crc32=&sort=&dir= for
// the catalogue, &id=&tracks=&from=&to=&compare= for an open entry, &skeleton=&t=&speed=&cam=&grid=
// for its 3D view. A link restores all of it.

export const state = {
  filters: { q: '', class: '', crc32: '' },
  sort: { key: 'id', dir: 'descending' },
  rows: [],
  cursor: null,
  total: null, // entries the filters select, of which rows are loaded
  totalExact: true, // false: total is a lower bound (a large search)
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
  hiddenCurves: new Set(), // the curves ("track:component") hidden from their legend, for this entry
};

// What the list sorts by (GET /api/resources?sort=), as the table's headers name them.
export const SORT_KEYS = ['id', 'class', 'crc32', 'name', 'family', 'track_count', 'duration', 'size', 'uploaded_at'];

export function readUrl() {
  const p = new URLSearchParams(location.search);
  state.filters = { q: p.get('q') || '', class: p.get('class') || '', crc32: p.get('crc32') || '' };
  const sort = SORT_KEYS.includes(p.get('sort')) ? p.get('sort') : 'id';
  state.sort = { key: sort, dir: p.get('dir') === 'ascending' ? 'ascending' : 'descending' };
  return {
    id: p.get('id'), tracks: p.get('tracks'), from: p.get('from'), to: p.get('to'),
    skeleton: p.get('skeleton'), t: p.get('t'), speed: p.get('speed'), cam: p.get('cam'),
    grid: p.get('grid'), compare: p.get('compare'), retarget: p.get('retarget'), map: p.get('map'),
  };
}

export function writeUrl() {
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
    if (view && motion.retarget && motion.skeleton && motion.skeleton !== 'none') {
      p.set('retarget', '1');
      if (motion.map) p.set('map', String(motion.map));
    }
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

// The 3D view (view3d.js): the entry's own rig, or a skeleton /skeletons ranks.

let urlTimer = null;

export const writeUrlSoon = () => { clearTimeout(urlTimer); urlTimer = setTimeout(writeUrl, 250); };
