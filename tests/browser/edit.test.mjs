// edit.test.mjs: the page's key editor in Debian's Chromium (tests/scripts/edit_page.sh), on a
// real animdexd: an Animation_Z (tests/browser/rig_files' run.Animation_Z, on its hero.Skel_Z)
// opened, a key chosen by its marker on the chart, a key given a new value, one deleted, one
// inserted at the view's time, each taken back and done again with Undo and Redo, and undone to
// nothing with nothing saved; a value that is not one refused where
// it was typed; then "Save as a new version": a new entry of the same class and handle whose
// edited track has the asked keys (the new value within one quantisation step), every other
// track identical, the note of what changed in the versions list.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { entryShown, pageStill, planChecks, runToTheEnd } from './checks.mjs';
import { chromiumArgs, startDaemon, upload } from './daemon.mjs';

const bin = process.env.ANIMDEXD;
const dir = mkdtempSync(join(tmpdir(), 'animdex-edit-page-'));
const planned = planChecks(13);
const check = (name, ok, detail = '') => planned.check(`edit page ${name}`, ok, detail);

const json = async (base, path) => (await fetch(`${base}${path}`)).json();
const editsPending = (page, n) => page.waitForFunction((want) => document.querySelector('#key-editor').dataset.edits === String(want), n);

async function main() {
  const { child, base } = await startDaemon(join(dir, 'page.db'));
  execFileSync(join(dirname(bin), 'tests', 'browser', 'rig_files'), [dir]);
  // its skeleton first, so that the view shows the take and has a time (the insert's)
  await upload(base, 'hero.Skel_Z', readFileSync(join(dir, 'hero.Skel_Z')));
  const run = await upload(base, 'run.Animation_Z', readFileSync(join(dir, 'run.Animation_Z')));
  const entry = await json(base, `/api/resources/${run}`);
  // a track of three keys or more that is not a rotation: its values typed as they are stored
  let track = null, keys = null;
  for (const t of entry.tracks) {
    if (t.kind === 'events' || t.key_count < 3 || t.semantic === 'NORMALIZED_QUATERNION') continue;
    track = t;
    keys = await json(base, `/api/resources/${run}/tracks/${t.n}/keys`);
    break;
  }
  if (!track) throw new Error('run.Animation_Z has no track of three keys to edit');
  const last = keys.times.length - 1;
  const insertAt = (keys.times[0] + keys.times[1]) / 2;
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${base}/?id=${run}&t=${insertAt}`);
    await page.waitForSelector('body[data-ready="true"]');
    await entryShown(page, run);
    await page.evaluate(() => { document.querySelector('#key-editor').open = true; });
    await page.selectOption('#edit-track', String(track.n));
    await page.waitForFunction((count) => document.querySelectorAll('#edit-keys tbody tr[data-key]').length === count, keys.times.length);
    check('the editor shows the track\'s keys, one row each', await page.locator('#edit-keys tbody tr[data-key]').count() === keys.times.length
      && await page.locator('#edit-save').isDisabled());

    // the track charted alone, key 2's marker pressed: that key chosen in the editor
    const charted = async (box, on) => {
      const draws = Number(await page.evaluate(() => document.body.dataset.chartDraws || 0));
      await page.setChecked(box, on);
      await page.waitForFunction((before) => Number(document.body.dataset.chartDraws) > before
        && document.body.dataset.pending === '0', draws);
    };
    if (track.n !== 0) {
      await charted(`input[aria-label="chart track ${track.n}"]`, true);
      await charted('input[aria-label="chart track 0"]', false);
    }
    const marker = await page.evaluate((n) => {
      const chart = Chart.getChart(document.querySelector('#chart'));
      for (const [d, set] of chart.data.datasets.entries()) {
        const j = set.data.findIndex((p) => p.track === n && p.key === 2);
        if (j >= 0 && !set.hidden) { const e = chart.getDatasetMeta(d).data[j]; return { x: e.x, y: e.y }; }
      }
      return null;
    }, track.n);
    await page.locator('#chart').scrollIntoViewIfNeeded();
    let box = await page.locator('#chart').boundingBox(); // in the viewport, where the mouse presses
    if (marker) await page.mouse.click(box.x + marker.x, box.y + marker.y);
    const chosen = marker && await page.waitForFunction((n) => document.querySelector('#key-editor').dataset.chosen === `${n}:2`,
      track.n, { timeout: 10000 }).then(() => true, () => false);
    check('a key\'s marker pressed on the chart chooses it in the editor', chosen
      && await page.locator('#edit-keys tr.chosen').getAttribute('data-key') === '2'
      && await page.evaluate(() => document.activeElement.matches('input.key-value[data-key="2"]')), JSON.stringify(marker));

    // key 2's marker dragged right and up: the key moved there, its time on a frame of the
    // timeline's rate, its value the pointer's; the marker drawn there; undone, back where it was
    const markerOf = (n, k) => page.evaluate(([n, k]) => {
      const chart = Chart.getChart(document.querySelector('#chart'));
      for (const [d, set] of chart.data.datasets.entries()) {
        const j = set.data.findIndex((p) => p.track === n && p.key === k);
        if (j >= 0 && !set.hidden && set.keyComponent === 0) {
          const e = chart.getDatasetMeta(d).data[j];
          return { x: e.x, y: e.y, time: set.data[j].x, value: set.data[j].y, axis: set.yAxisID || 'y' };
        }
      }
      return null;
    }, [n, k]);
    const before2 = await markerOf(track.n, 2);
    const to = { x: before2.x - 37, y: before2.y - 23 };
    await page.mouse.move(box.x + before2.x, box.y + before2.y);
    await page.mouse.down();
    for (let s = 1; s <= 5; s++) await page.mouse.move(box.x + before2.x + ((to.x - before2.x) * s) / 5, box.y + before2.y + ((to.y - before2.y) * s) / 5);
    await page.mouse.up();
    await editsPending(page, 1);
    const dragged = await page.evaluate(([n, p]) => {
      const chart = Chart.getChart(document.querySelector('#chart'));
      const time = Number(document.querySelector('#edit-keys input.key-time[data-key="2"]').value);
      const value = document.querySelector('#edit-keys input.key-value[data-key="2"]').title.split(',').map(Number);
      const fps = Number(document.querySelector('#fps').value);
      return { time, value, fps, pointerTime: chart.scales.x.getValueForPixel(p.x), pointerValue: chart.scales[p.axis].getValueForPixel(p.y) };
    }, [track.n, { ...to, axis: before2.axis }]);
    const after2 = await markerOf(track.n, 2);
    check('a key\'s marker dragged moves the key in time (on a frame) and value, and is drawn where it was let go',
      Math.abs(dragged.time * dragged.fps - Math.round(dragged.time * dragged.fps)) < 1e-4
        && Math.abs(dragged.time - dragged.pointerTime) <= 0.5 / dragged.fps + 1e-6 && dragged.time < keys.times[2]
        && Math.abs(dragged.value[0] - dragged.pointerValue) < 1e-3 * Math.max(1, Math.abs(dragged.pointerValue))
        && dragged.value.slice(1).every((v, i) => Math.abs(v - keys.values[2][i + 1]) < 1e-6)
        && after2 && Math.abs(after2.time - dragged.time) < 1e-6 && Math.abs(after2.value - dragged.value[0]) < 1e-6,
      `${JSON.stringify(dragged)} marker ${JSON.stringify(after2)} from ${JSON.stringify(before2)}`);
    await page.click('#edit-undo');
    await editsPending(page, 0);
    await page.waitForFunction(([n, t]) => {
      const chart = Chart.getChart(document.querySelector('#chart'));
      return chart.data.datasets.some((set) => set.data.some((p) => p.track === n && p.key === 2 && p.x === t));
    }, [track.n, keys.times[2]], { timeout: 10000 }).catch(() => {});
    const back2 = await markerOf(track.n, 2);
    check('undone, the key and its marker are where they were', back2 && back2.time === before2.time && back2.value === before2.value,
      JSON.stringify(back2));
    await page.locator('#chart').scrollIntoViewIfNeeded(); // the Undo button's click scrolled the page
    box = await page.locator('#chart').boundingBox();

    // keys chosen together: a click, a shift-click; a drag of one moves both by as much, in one
    // edit that one undo takes back; a shift-drag's box chooses the keys in it
    const k0 = await markerOf(track.n, 0), k2 = await markerOf(track.n, 2);
    await page.mouse.click(box.x + k0.x, box.y + k0.y);
    await page.waitForFunction(() => document.querySelector('#key-editor').dataset.selected === '0');
    await page.keyboard.down('Shift');
    await page.mouse.click(box.x + k2.x, box.y + k2.y);
    await page.keyboard.up('Shift');
    const both = await page.waitForFunction(() => document.querySelector('#key-editor').dataset.selected === '0,2', null, { timeout: 10000 })
      .then(() => true, () => false);
    await page.mouse.move(box.x + k2.x, box.y + k2.y);
    await page.mouse.down();
    for (let s = 1; s <= 5; s++) await page.mouse.move(box.x + k2.x - 6 * s, box.y + k2.y);
    await page.mouse.up();
    await editsPending(page, 2);
    const moved2 = await page.evaluate(() => [0, 2].map((k) => Number(document.querySelector(`#edit-keys input.key-time[data-key="${k}"]`).value)));
    const dt = [moved2[0] - keys.times[0], moved2[1] - keys.times[2]];
    check('a key shift-clicked joins the chosen one, and a drag moves both by as much', both && dt[1] < 0 && Math.abs(dt[0] - dt[1]) < 1e-5,
      `${JSON.stringify(moved2)} from ${keys.times[0]}, ${keys.times[2]}`);
    await page.click('#edit-undo');
    await editsPending(page, 0);
    await page.locator('#chart').scrollIntoViewIfNeeded();
    box = await page.locator('#chart').boundingBox();
    const k1 = await markerOf(track.n, 1), a0 = await markerOf(track.n, 0);
    const rect = { left: Math.min(a0.x, k1.x) - 14, right: Math.max(a0.x, k1.x) + 14, top: Math.min(a0.y, k1.y) - 14, bottom: Math.max(a0.y, k1.y) + 14 };
    const inside = await page.evaluate(([n, r]) => {
      const chart = Chart.getChart(document.querySelector('#chart')), keys = new Set();
      chart.data.datasets.forEach((set, d) => {
        if (set.keyComponent === undefined || set.hidden) return;
        chart.getDatasetMeta(d).data.forEach((e, j) => { if (set.data[j].track === n && e.x >= r.left && e.x <= r.right && e.y >= r.top && e.y <= r.bottom) keys.add(set.data[j].key); });
      });
      return [...keys].sort((a, b) => a - b).join(',');
    }, [track.n, rect]);
    // a plain press where there is no key: none chosen
    const empty = await page.evaluate((t) => {
      const chart = Chart.getChart(document.querySelector('#chart'));
      return { x: chart.scales.x.getPixelForValue(t), y: chart.chartArea.bottom - 2 };
    }, (keys.times[1] + keys.times[2]) / 2);
    await page.mouse.click(box.x + empty.x, box.y + empty.y);
    await page.waitForFunction(() => document.querySelector('#key-editor').dataset.selected === '');
    await page.keyboard.down('Shift');
    // from below and right of the keys (in the chart's area or its margin, never on the legend)
    await page.mouse.move(box.x + rect.right, box.y + rect.bottom);
    await page.mouse.down();
    for (let s = 1; s <= 5; s++) await page.mouse.move(box.x + rect.right - ((rect.right - rect.left) * s) / 5, box.y + rect.bottom - ((rect.bottom - rect.top) * s) / 5);
    await page.mouse.up();
    await page.keyboard.up('Shift');
    const boxed = await page.waitForFunction((want) => document.querySelector('#key-editor').dataset.selected === want,
      inside, { timeout: 10000 }).then(() => true, () => false);
    const selectedNow = await page.locator('#key-editor').getAttribute('data-selected');
    check('a shift-drag\'s box chooses the keys in it', boxed && inside.split(',').includes('0') && inside.split(',').includes('1')
      && await page.locator('#key-editor').getAttribute('data-edits') === '0', `${selectedNow} for ${inside}`);

    // the view's time back where the insert goes (the press on key 2 moved it there): pressed
    // on the chart away from the keys
    const at = await page.evaluate((t) => {
      const chart = Chart.getChart(document.querySelector('#chart'));
      return { x: chart.scales.x.getPixelForValue(t), y: (chart.chartArea.top + chart.chartArea.bottom) / 2 };
    }, insertAt);
    await page.mouse.click(box.x + at.x, box.y + at.y);
    await page.waitForFunction((t) => Math.abs(Number(document.querySelector('#chart-cursor').dataset.time) - t) < 0.02, insertAt);

    // key 1 given a new value (its first component a quarter more), the last key deleted, a key
    // inserted at the view's time
    const wanted = keys.values[1].map((v, i) => (i === 0 ? v + 0.25 : v));
    await page.fill('#edit-keys input.key-value[data-key="1"]', wanted.join(', '));
    await page.press('#edit-keys input.key-value[data-key="1"]', 'Enter');
    await page.locator('#edit-keys input.key-value[data-key="1"]').blur();
    await editsPending(page, 1);
    await page.click(`#edit-keys button[data-delete="${last}"]`);
    await editsPending(page, 2);
    await page.click('#edit-insert');
    await editsPending(page, 3);
    const rows = await page.locator('#edit-keys tbody tr').count();
    check('a key changed, one deleted and one inserted are shown as they will be', rows === keys.times.length
      && await page.locator('#edit-keys tbody tr.inserted').count() === 1
      && await page.locator(`#edit-keys tbody tr[data-key="${last}"]`).count() === 0, `${rows} rows`);

    // a value that is not one: refused where it was typed, nothing changed
    await page.fill('#edit-keys input.key-value[data-key="0"]', 'walk');
    await page.locator('#edit-keys input.key-value[data-key="0"]').blur();
    await page.waitForFunction(() => /key 0/.test(document.querySelector('#key-editor').dataset.error || ''));
    check('a value that is not a number is refused, the edits unchanged',
      await page.locator('#key-editor').getAttribute('data-edits') === '3'
        && /Key 0: give a time and/.test(await page.locator('#edit-result').innerText()));

    // undone to nothing: nothing to save, nothing saved; done again
    for (const n of [2, 1, 0]) { await page.click('#edit-undo'); await editsPending(page, n); }
    const none = await page.locator('#edit-save').isDisabled() && await page.locator('#edit-undo').isDisabled();
    const stored = (await json(base, '/api/health')).counts.resources;
    for (const n of [1, 2, 3]) { await page.click('#edit-redo'); await editsPending(page, n); }
    check('undo takes every edit back (nothing to save, nothing stored), redo does them again',
      none && stored === 2 && await page.locator('#edit-redo').isDisabled() && !(await page.locator('#edit-save').isDisabled()), `${none}, ${stored} entries`);

    // saved: a new version, opened
    await page.fill('#edit-note', 'a longer stride');
    await page.click('#edit-save');
    await page.waitForFunction(() => document.querySelector('#key-editor').dataset.saving === 'false'
      && document.querySelector('#key-editor').dataset.saved);
    const made = Number(await page.locator('#key-editor').getAttribute('data-saved'));
    await entryShown(page, made);
    const version = await json(base, `/api/resources/${made}`);
    check('"Save as a new version" makes an entry of the same class and handle, and opens it',
      made !== run && version.class === entry.class && version.crc32 === entry.crc32
        && /^edited from entry \d+: track \d+ \(1 key changed, 1 deleted, 1 inserted\); a longer stride$/.test(version.note || ''),
      `${made}: ${version.class} ${version.crc32} "${version.note}"`);
    const after = await json(base, `/api/resources/${made}/tracks/${track.n}/keys`);
    const step = 1 / 1024; // a translation key's step in an Animation_Z is finer than this
    const near = (a, b) => Math.abs(a - b) <= step;
    const inserted = after.times.findIndex((t) => near(t, insertAt) || (t > keys.times[0] && t < keys.times[1]));
    const moved = after.times.findIndex((t) => t === keys.times[1]);
    check('its track has the keys asked: the new value within a step, the last gone, one inserted',
      after.times.length === keys.times.length && inserted === 1 && moved === 2
        && after.values[moved].every((v, i) => near(v, wanted[i]))
        && after.times[after.times.length - 1] === keys.times[last - 1],
      `${JSON.stringify(after.times)} ${JSON.stringify(after.values[moved])}`);
    const compare = await json(base, `/api/compare?a=${run}&b=${made}`);
    const differing = compare.pairs.filter((p) => !p.identical).map((p) => p.a);
    check('every other track is identical', differing.length === 1 && differing[0] === track.n
      && !compare.only_in_a.length && !compare.only_in_b.length, JSON.stringify(differing));
    await pageStill(page);
    const versions = await page.locator('#versions tbody').innerText();
    check('the versions list shows the first entry; the page made no error', versions.includes(String(run)) && !errors.length,
      `${versions} ${errors.join('; ')}`);
  } finally {
    await browser.close();
    child.kill();
  }
}

await runToTheEnd('edit page', main, planned, () => rmSync(dir, { recursive: true, force: true }));
