// main.js: the page's start: every part set up, the catalogue read, and the entry a link
// names opened. The page is ES modules served as they are (no build step); Chart.js and
// three.js are Debian's, served by animdexd under /vendor/chart.js/ and /vendor/three/.

import { token } from '/api.js';
import { setUpBones } from '/bones.js';
import { loadHealth, loadClasses, loadCatalogue, setUpCatalogue } from '/catalogue.js';
import { setUpChart } from '/chart.js';
import { setUpKeyEditor } from '/keys.js';
import { setUpCompare } from '/compare.js';
import { $ } from '/dom.js';
import { openEntry, setUpEntry } from '/entry.js';
import { followEvents, setUpLive } from '/live.js';
import { setUpNames } from '/names.js';
import { wireReduce } from '/reduce.js';
import { readUrl } from '/state.js';
import { publish } from '/status.js';
import { setUpUpload } from '/upload.js';

async function start() {
  publish('pending', 0);
  publish('entry', '');
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
  setUpChart();
  setUpKeyEditor();
  setUpCompare();
  setUpBones();
  setUpLive();
  wireReduce();
  followEvents(); // first, so that nothing falls between the list and the stream
  await Promise.all([loadHealth(), loadClasses(), loadCatalogue()]);
  if (view.id) {
    const window = view.from !== null && view.to !== null ? [Number(view.from), Number(view.to)] : null;
    await openEntry(view.id, view.tracks ? view.tracks.split(',').map(Number) : null, window,
      { skeleton: view.skeleton, t: view.t, speed: view.speed, cam: view.cam, grid: view.grid, compare: view.compare,
        retarget: view.retarget, map: view.map });
  }
  publish('ready', true);
}

// a module runs once the document is parsed
start();
