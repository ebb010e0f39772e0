// view.test.mjs: the page's 3D view in Debian's Chromium (tests/scripts/view.sh), on a real
// animdexd: a glTF entry with a node tree, a mesh and two clips; a Zouna Animation_Z posed on a
// Skel_Z and a Burnout vehicle (both written by tests/browser/rig_files); a Radient clip posed on
// a glTF entry's rig. The view draws; it moves; its "Joints at t" table equals GET .../pose at
// the time it shows, after scrubbing, playing and pausing, and stepping; the chart's time and
// the view's are one; a link restores the frame and the camera; the skeleton can be changed,
// and one that covers nothing says so; a page without WebGL says so and charts; playing costs
// no request a frame; the bone list shows the tree, finds bones, and chooses a bone with the
// view and the track table both ways. Screenshots (one a family) go to $ANIMDEX_SCREENSHOTS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { entryShown, planChecks } from './checks.mjs';
import { chromiumArgs, startDaemon, upload } from './daemon.mjs';
import { curtainGlb, skinnedGlb, treeGlb } from './view_files.mjs';

const bin = process.env.ANIMDEXD;
const srcdir = process.env.ANIMDEX_SRCDIR || '.';
const shots = process.env.ANIMDEX_SCREENSHOTS || join(process.cwd(), 'tests', 'output');
const dir = mkdtempSync(join(tmpdir(), 'animdex-view-'));
const planned = planChecks(93);
const check = (name, ok, detail = '') => planned.check(`view ${name}`, ok, detail);



// The view's pixels: how many differ from the background, how many are near black, and a
// digest of them.
const pixels = (page) => page.evaluate(() => {
  const source = document.querySelector('#view');
  const c = document.createElement('canvas');
  c.width = source.width; c.height = source.height;
  const g = c.getContext('2d');
  g.drawImage(source, 0, 0);
  const data = g.getImageData(0, 0, c.width, c.height).data;
  let drawn = 0, black = 0, digest = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (Math.abs(data[i] - 0xf6) + Math.abs(data[i + 1] - 0xf8) + Math.abs(data[i + 2] - 0xfa) > 24) drawn++;
    if (Math.max(data[i], data[i + 1], data[i + 2]) < 0x40) black++;
    digest = (digest * 31 + data[i] + data[i + 1] * 7 + data[i + 2] * 13) >>> 0;
  }
  return { drawn, black, digest, total: data.length / 4 };
});

// The "Joints at t" table against GET pose at its time: the largest difference, and why not.
async function jointsMatchPose(page, base, id, skeleton) {
  const table = await page.evaluate(() => ({
    time: document.querySelector('#joints').dataset.time,
    rows: [...document.querySelectorAll('#joints tbody tr')].map((r) => ({ node: Number(r.dataset.node), world: r.dataset.world.split(' ').map(Number) })),
  }));
  if (!table.rows.length || table.time === '') return { ok: false, why: 'the table is empty' };
  const pose = await (await fetch(`${base}/api/resources/${id}/pose?t=${table.time}${skeleton ? `&skeleton=${skeleton}` : ''}`)).json();
  let worst = 0;
  for (const row of table.rows) {
    const n = pose.nodes.findIndex((x) => x.source === row.node);
    if (n < 0) return { ok: false, why: `pose has no node ${row.node}` };
    const w = pose.poses[0].world[n];
    for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(w[12 + c] - row.world[c]));
  }
  return { ok: worst <= 1e-6, why: `largest difference ${worst} at t=${table.time}`, time: Number(table.time), rows: table.rows.length };
}

const viewTime = (page) => page.evaluate(() => Number(document.querySelector('#view').dataset.time));
const waitStill = (page) => page.waitForFunction(() => document.querySelector('#view').dataset.playing === 'false'
  && document.querySelector('#joints').dataset.time === document.querySelector('#view').dataset.time);

async function openEntry(browser, url, viewport = { width: 1280, height: 1000 }) {
  const page = await browser.newPage({ viewport });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  const id = new URL(url).searchParams.get('id');
  if (id) await entryShown(page, id);
  await page.waitForFunction(() => document.querySelector('#view').dataset.sweep !== undefined, null, { timeout: 20000 });
  await page.evaluate(() => { document.querySelector('#joints-box').open = true; });
  await page.waitForFunction(() => document.querySelectorAll('#joints tbody tr').length > 0);
  return { page, errors };
}

async function main() {
  execFileSync(join(dirname(bin), 'tests', 'browser', 'rig_files'), [dir]);
  const { child, base } = await startDaemon(join(dir, 'view.db'));
  const tree = await upload(base, 'tree.glb', treeGlb());
  const curtain = await upload(base, 'curtain.glb', curtainGlb());
  const skinned = await upload(base, 'skinned.glb', skinnedGlb());
  const hero = await upload(base, 'hero.Skel_Z', readFileSync(join(dir, 'hero.Skel_Z')));
  // a skeleton of a long file name (its name is the options' of the Skeleton selects)
  const other = await upload(base, 'other_skeleton_of_a_creature_from_another_level_with_a_very_long_file_name.Skel_Z',
    readFileSync(join(dir, 'other.Skel_Z')));
  const spine = await upload(base, 'spine.Skel_Z', readFileSync(join(dir, 'spine.Skel_Z')));
  const run = await upload(base, 'run.Animation_Z', readFileSync(join(dir, 'run.Animation_Z')));
  const vehicle = await upload(base, 'pusmc01_vanm.dat', readFileSync(join(dir, 'pusmc01_vanm.dat')));
  const stillVehicle = await upload(base, 'pusmc02_vanm.dat', readFileSync(join(dir, 'pusmc02_vanm.dat')));
  const take = await upload(base, 'three_orders.bvh', readFileSync(join(srcdir, 'tests', 'data', 'bvh', 'three_orders.bvh')));
  const nod = await upload(base, 'nod.json', Buffer.from(JSON.stringify({
    name: 'radient nod', duration: 2,
    targets: [{ schema: 'E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3', object: 0, name: 'spine' }],
    samplers: [{ value: { type: 'FLOAT4' }, interpolation: 'LINEAR', semantic: 'NORMALIZED_QUATERNION', times: [0, 2],
      values: [0, 0, 0, 1, 0.6, 0, 0, 0.8] }],
    channels: [{ target: 0, property: 2, sampler: 0 }],
  })));
  // a clip keyed at 24 frames a second (its keys at frames 0, 1, 3 and 10)
  const film = await upload(base, 'film.json', Buffer.from(JSON.stringify({
    name: 'film nod', duration: 0.5,
    targets: [{ schema: 'E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3', object: 0, name: 'spine' }],
    samplers: [{ value: { type: 'FLOAT4' }, interpolation: 'LINEAR', semantic: 'NORMALIZED_QUATERNION',
      times: [0, 1 / 24, 3 / 24, 10 / 24], values: [0, 0, 0, 1, 0.6, 0, 0, 0.8, 0, 0.6, 0, 0.8, 0, 0, 0, 1] }],
    channels: [{ target: 0, property: 2, sampler: 0 }],
  })));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
  try {
    // --- a glTF entry with its own tree
    const { page, errors } = await openEntry(browser, `${base}/?id=${tree}`);
    check('the page loads three.js from the daemon and draws the tree', (await pixels(page)).drawn > 200,
      JSON.stringify(await pixels(page)));
    check('its coverage line names its own rig', /own rig: 2 nodes, 2 moved/.test(await page.locator('#coverage').innerText()),
      await page.locator('#coverage').innerText());
    await page.locator('#view-box').screenshot({ path: join(shots, 'view-gltf.png') });
    let m = await jointsMatchPose(page, base, tree);
    check('Joints at t equals pose when the entry opens', m.ok, m.why);
    // playing moves the time text and the scrub bar with the view, the Joints box never opened
    {
      const fresh = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      await fresh.goto(`${base}/?id=${tree}`);
      await fresh.waitForSelector('body[data-ready="true"]');
      await fresh.waitForFunction(() => document.querySelector('#view').dataset.sweep !== undefined, null, { timeout: 20000 });
      const shown = () => [document.querySelector('#time-text').textContent, document.querySelector('#scrub').value];
      const start = await fresh.evaluate(shown);
      await fresh.click('#play');
      await fresh.waitForFunction((s) => document.querySelector('#time-text').textContent !== s[0] &&
        document.querySelector('#scrub').value !== s[1], start, { timeout: 15000 }).catch(() => {});
      const now = await fresh.evaluate(shown);
      const playingNow = await fresh.evaluate(() => document.querySelector('#view').dataset.playing);
      check('playing moves the time text and the scrub bar', now[0] !== start[0] && now[1] !== start[1],
        `from ${start} to ${now}, playing ${playingNow}`);
      await fresh.close();
    }
    // dragging on the chart: the view follows the pointer, also when the answer to the press
    // comes after the pointer has moved on (held here until then), and ends exactly where the
    // button is let go, with the readout
    {
      const box = await page.locator('#chart').boundingBox();
      const y = box.y + box.height / 2, x1 = box.x + box.width * 0.3, x2 = box.x + box.width * 0.7;
      const timeAt = (x) => page.evaluate((x) => {
        const canvas = document.querySelector('#chart'), chart = Chart.getChart(canvas);
        const v = chart.scales.x.getValueForPixel(x - canvas.getBoundingClientRect().left);
        return Math.min(Math.max(v, chart.scales.x.min), chart.scales.x.max);
      }, x);
      const [t1, t2] = [await timeAt(x1), await timeAt(x2)];
      const answered = () => page.evaluate(() => Number(document.querySelector('#view').dataset.answered || 0));
      const before = await answered();
      let open;
      const gate = new Promise((resolve) => { open = resolve; });
      const poseAt = (url) => url.pathname.endsWith('/pose') && url.searchParams.has('t');
      const hold = async (route) => { await gate; await route.continue(); };
      await page.route(poseAt, hold);
      await page.mouse.move(x1, y);
      await page.mouse.down();
      for (let i = 1; i <= 8; i++) await page.mouse.move(x1 + ((x2 - x1) * i) / 8, y);
      // the poses asked for are all held: what the view shows now it shows without them
      await page.waitForFunction((t) => Math.abs(Number(document.querySelector('#view').dataset.time) - t) < 0.1, t2, { timeout: 10000 }).catch(() => {});
      const moving = await viewTime(page);
      check('dragging on the chart, the view follows the pointer without waiting for animdex',
        Math.abs(moving - t2) < Math.abs(moving - t1), `view at ${moving}, pressed at ${t1}, pointer at ${t2}`);
      open();
      await page.waitForFunction((n) => Number(document.querySelector('#view').dataset.answered) > n, before, { timeout: 10000 }).catch(() => {});
      const late = await viewTime(page);
      check('the press\'s late answer does not pull the view back', Math.abs(late - t2) < Math.abs(late - t1),
        `view at ${late}, pressed at ${t1}, pointer at ${t2}`);
      await page.mouse.up();
      await page.unroute(poseAt, hold);
      await page.waitForFunction((t) => Math.abs(Number(document.querySelector('#readout').dataset.t) - t) < 1e-4 &&
        document.querySelector('#readout').dataset.t === document.querySelector('#view').dataset.time, t2, { timeout: 10000 }).catch(() => {});
      const after = { view: await viewTime(page), readout: Number(await page.locator('#readout').getAttribute('data-t')) };
      check('let go, the view and the readout are where the pointer is', Math.abs(after.view - t2) < 1e-4 && after.readout === after.view,
        `${JSON.stringify(after)}, pointer at ${t2}`);
    }
    // scrub the view to 0 and to the middle: different pictures, both exact
    await page.evaluate(() => { const s = document.querySelector('#scrub'); s.value = '0'; s.dispatchEvent(new Event('input')); });
    // the exact pose at 0 shown (the view's time and the joints' were the drag's until it comes)
    await page.waitForFunction(() => document.querySelector('#joints').dataset.time === '0', null, { timeout: 10000 }).catch(() => {});
    await waitStill(page);
    const atStart = await pixels(page);
    m = await jointsMatchPose(page, base, tree);
    check('after scrubbing to the start, Joints at t equals pose', m.ok && m.time === 0, m.why);
    await page.evaluate(() => { const s = document.querySelector('#scrub'); s.value = '500'; s.dispatchEvent(new Event('input')); });
    await page.waitForFunction(() => Number(document.querySelector('#joints').dataset.time) > 0.9);
    const atMiddle = await pixels(page);
    check('the view at t=0 differs from the view in the middle of the clip', atStart.digest !== atMiddle.digest,
      `${atStart.digest} ${atMiddle.digest}`);
    m = await jointsMatchPose(page, base, tree);
    check('after scrubbing to the middle, Joints at t equals pose', m.ok && Math.abs(m.time - 1) < 1e-6, m.why);
    check('the readout under the chart shows the view\'s time', Number(await page.locator('#readout').getAttribute('data-t')) === m.time,
      `${await page.locator('#readout').getAttribute('data-t')} vs ${m.time}`);
    // play (counting requests, and noting each time the readout shows while playing) and pause
    const requests = [];
    const count = (r) => requests.push(r.url());
    page.on('request', count);
    await page.evaluate(() => {
      window.readoutTimes = [];
      new MutationObserver(() => {
        if (document.querySelector('#view').dataset.playing === 'true') window.readoutTimes.push(Number(document.querySelector('#readout').dataset.t));
      }).observe(document.querySelector('#readout'), { attributes: true, attributeFilter: ['data-t'] });
    });
    const framesBefore = await page.evaluate(() => Number(document.body.dataset.frames || 0));
    await page.click('#play');
    await page.waitForFunction((n) => Number(document.body.dataset.frames || 0) >= n + 60
      && new Set(window.readoutTimes).size >= 3, framesBefore, { timeout: 60000 }).catch(() => {});
    // the requests counted up to here, the frames played counted after: as many frames at least
    page.off('request', count);
    const playing = await page.evaluate(() => document.querySelector('#view').dataset.playing);
    const played = await page.evaluate((n) => Number(document.body.dataset.frames || 0) - n, framesBefore);
    const readoutTimes = await page.evaluate(() => window.readoutTimes);
    const readoutAsked = requests.filter((u) => /\/sample\?t=/.test(u)).length;
    const charted = await page.evaluate(() => document.querySelectorAll('#tracks tbody input:checked').length);
    check('playing 60 frames costs no request a frame (but the readout\'s)', playing === 'true' && played >= 60
      && requests.length - readoutAsked <= 2, `${played} frames, ${requests.length - readoutAsked} requests: ${requests.filter((u) => !/\/sample\?t=/.test(u)).slice(0, 3)}`);
    check('the readout follows playback, asked at most once every six frames', new Set(readoutTimes).size >= 3 && charted > 0
      && readoutAsked <= charted * (Math.floor(played / 6) + 1),
      `readout at ${readoutTimes.join(', ')}; ${readoutAsked} samples for ${charted} tracks over ${played} frames`);
    await page.click('#play');
    await waitStill(page);
    m = await jointsMatchPose(page, base, tree);
    check('after playing and pausing, Joints at t equals pose', m.ok, m.why);
    // step two frames forward at 30 frames a second, then one back with the keyboard
    const before = await viewTime(page);
    await page.click('#step-forward');
    await page.waitForFunction((t) => Number(document.querySelector('#joints').dataset.time) !== t, before);
    await page.click('#step-forward');
    await page.waitForFunction((t) => Math.abs(Number(document.querySelector('#joints').dataset.time) - t - 2 / 30) < 1e-5, before);
    m = await jointsMatchPose(page, base, tree);
    check('after stepping two frames, Joints at t equals pose', m.ok && Math.abs(m.time - before - 2 / 30) < 1e-5, `${m.why}, from ${before}`);
    await page.locator('#motion-title').click();
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction((t) => Math.abs(Number(document.querySelector('#joints').dataset.time) - t - 1 / 30) < 1e-5, before);
    check('the left arrow key steps one frame back', true);
    // counting in frames: the ruler, the time and the readout at 24 and at 30 frames a second,
    // and "go to frame"
    const inFrames = async (fps, frame) => {
      await page.fill('#fps', String(fps));
      await page.dispatchEvent('#fps', 'change');
      if (!(await page.isChecked('#in-frames'))) await page.check('#in-frames');
      await page.fill('#go-frame', String(frame));
      await page.dispatchEvent('#go-frame', 'change');
      await page.waitForFunction(([f, n]) => Math.abs(Number(document.querySelector('#view').dataset.time) - n / f) < 1e-6
        && document.querySelector('#view').dataset.playing === 'false'
        && /^frame /.test(document.querySelector('#readout').textContent)
        && Math.abs(Number(document.querySelector('#readout').dataset.t) - n / f) < 1e-6, [fps, frame], { timeout: 10000 }).catch(() => {});
      return page.evaluate(() => ({ time: Number(document.querySelector('#view').dataset.time), text: document.querySelector('#time-text').textContent,
        readout: document.querySelector('#readout').textContent.split('\n')[0], unit: document.querySelector('#timeline').dataset.unit,
        labels: document.querySelector('#timeline').dataset.labels.split(' ').map(Number), window: document.querySelector('#view').dataset.time }));
    };
    for (const [fps, frame] of [[24, 12], [30, 21]]) {
      const f = await inFrames(fps, frame);
      const step = f.labels[1] - f.labels[0];
      check(`in frames at ${fps} a second: the ruler in whole frames, "go to frame ${frame}" there, the time and the readout say it`,
        f.unit === 'frames' && f.labels.length >= 3 && step > 0 && f.labels.every((l, i) => Number.isInteger(l) && l % step === 0 && (i === 0 || l - f.labels[i - 1] === step))
        && f.labels[f.labels.length - 1] <= 2 * fps && Math.abs(f.time - frame / fps) < 1e-6 && f.text === `frame ${frame}`
        && f.readout === `frame ${frame} (t = ${Number((frame / fps).toFixed(4))} s)`, JSON.stringify(f));
    }
    await page.uncheck('#in-frames');
    await page.waitForFunction(() => document.querySelector('#timeline').dataset.unit === 'seconds' && / s$/.test(document.querySelector('#time-text').textContent));
    await page.fill('#fps', '30');
    await page.dispatchEvent('#fps', 'change');
    // the chart moves the view: press on the chart at a quarter of its width
    await page.locator('#chart').scrollIntoViewIfNeeded();
    const box = await page.locator('#chart').boundingBox();
    const chartTime = await page.evaluate(({ x }) => {
      const chart = Chart.getChart('chart');
      return chart.scales.x.getValueForPixel(x);
    }, { x: box.width * 0.25 });
    await page.mouse.click(box.x + box.width * 0.25, box.y + box.height / 2);
    await page.waitForFunction((t) => Math.abs(Number(document.querySelector('#joints').dataset.time) - t) < 1e-4, chartTime);
    m = await jointsMatchPose(page, base, tree);
    check('pressing on the chart moves the view to that time', m.ok && Math.abs(m.time - chartTime) < 1e-4, `${m.why}, chart ${chartTime}`);
    // pressing and dragging: the view, the chart's cursor and the readout end where the button
    // is released, not where it was pressed
    const dragTime = await page.evaluate(({ x }) => Chart.getChart('chart').scales.x.getValueForPixel(x), { x: box.width * 0.6 });
    await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.45, box.y + box.height / 2, { steps: 4 });
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    await page.waitForFunction((t) => Math.abs(Number(document.querySelector('#joints').dataset.time) - t) < 1e-4
      && Math.abs(Number(document.querySelector('#readout').dataset.t) - t) < 1e-4, dragTime, { timeout: 10000 }).catch(() => {});
    m = await jointsMatchPose(page, base, tree);
    const readoutT = Number(await page.locator('#readout').getAttribute('data-t'));
    check('pressing and dragging on the chart: the view and the readout end where the button is released',
      m.ok && Math.abs(m.time - dragTime) < 1e-4 && Math.abs(readoutT - dragTime) < 1e-4,
      `${m.why}, view ${m.time}, readout ${readoutT}, released at ${dragTime}`);
    // the mesh
    const skeletonPixels = await pixels(page);
    await page.selectOption('#view-mode', 'mesh');
    const meshPixels = await pixels(page);
    check('the upload\'s mesh shows, moved by the same pose', !(await page.locator('#view-mode').isDisabled())
      && meshPixels.digest !== skeletonPixels.digest, `${skeletonPixels.digest} ${meshPixels.digest}`);
    await page.selectOption('#view-mode', 'both');
    // a link: turn the camera, then open the URL in a new page
    await page.locator('#view').scrollIntoViewIfNeeded();
    const canvas = await page.locator('#view').boundingBox();
    const camBefore = new URL(page.url()).searchParams.get('cam');
    await page.mouse.move(canvas.x + canvas.width / 2, canvas.y + canvas.height / 2);
    await page.mouse.down();
    await page.mouse.move(canvas.x + canvas.width / 2 + 80, canvas.y + canvas.height / 2 + 20, { steps: 5 });
    await page.mouse.up();
    // the URL holds the camera once the page has written it (a quarter of a second after the
    // last move): wait for that, not for a time
    await page.waitForFunction((before) => {
      const cam = new URL(location.href).searchParams.get('cam');
      return cam && cam !== before;
    }, camBefore, { timeout: 10000 }).catch(() => {});
    const url = page.url();
    const shown = await page.evaluate(() => document.querySelector('#joints').dataset.time);
    // (on a laptop's screen, where the view is below the entry's top)
    const { page: again } = await openEntry(browser, url, { width: 1280, height: 720 });
    const same = await again.evaluate(() => document.querySelector('#joints').dataset.time);
    const cam = new URL(url).searchParams.get('cam');
    await again.waitForFunction((c) => new URL(location.href).searchParams.get('cam') === c, cam, { timeout: 10000 })
      .catch(() => {});
    check('a link restores the same frame and camera', same === shown && cam && new URL(again.url()).searchParams.get('cam') === cam,
      `time ${shown} -> ${same}, cam ${cam} -> ${new URL(again.url()).searchParams.get('cam')}`);
    const grids = [await page.evaluate(() => document.querySelector('#view').dataset.grid),
      await again.evaluate(() => document.querySelector('#view').dataset.grid)];
    check('a link restores the grid the sender saw', grids[0] && grids[0] === grids[1] && !grids[0].startsWith('1,'),
      `${grids[0]} -> ${grids[1]}`);
    const landed = await again.evaluate(() => {
      const r = document.querySelector('#view-box').getBoundingClientRect();
      return { top: r.top, bottom: r.bottom, height: innerHeight };
    });
    check('a link lands on the view, not a scroll above it', landed.top >= 0 && landed.bottom <= landed.height + 1,
      JSON.stringify(landed));
    await again.close();
    // the file's other clip, without leaving the view: the same time, the same bone chosen
    await page.locator('#bones .bone', { hasText: 'spine' }).click();
    await page.waitForFunction(() => document.querySelector('#view').dataset.selected === 'spine', null, { timeout: 10000 }).catch(() => {});
    const clips = await page.locator('#clip-choice option').count();
    const clipTime = await page.evaluate(() => document.querySelector('#joints').dataset.time);
    await page.selectOption('#clip-choice', { index: 1 });
    await page.waitForFunction(() => /nod/.test(document.querySelector('#entry-title').textContent)
      && document.querySelector('#view').dataset.sweep !== undefined);
    await page.evaluate(() => { document.querySelector('#joints-box').open = true; });
    await page.waitForFunction((t) => document.querySelector('#joints').dataset.time === t, clipTime, { timeout: 10000 }).catch(() => {});
    const after = await page.evaluate(() => document.querySelector('#joints').dataset.time);
    check('the file\'s other clip plays in the same view at the same time', clips === 2 && after === clipTime, `${clips} clips, ${clipTime} -> ${after}`);
    await page.waitForFunction(() => document.querySelector('#bones li[aria-selected="true"]'), null, { timeout: 10000 }).catch(() => {});
    const clipBone = await page.evaluate(() => ({ view: document.querySelector('#view').dataset.selected,
      list: document.querySelector('#bones li[aria-selected="true"] .bone')?.firstChild.textContent,
      charted: Chart.getChart('chart').data.datasets.map((d) => d.label).filter((l) => /^spine rotation/.test(l)).length }));
    check('and keeps the bone chosen, its track charted', clipBone.view === 'spine' && clipBone.list === 'spine' && clipBone.charted > 0,
      JSON.stringify(clipBone));
    // comparing with the other clip: it plays as a grey ghost on the same rig
    const nodClip = new URL(page.url()).searchParams.get('id');
    const g = await openEntry(browser, `${base}/?id=${tree}&t=1`);
    const alone = await pixels(g.page);
    await g.page.goto(`${base}/?id=${tree}&t=1&compare=${nodClip}`);
    await g.page.waitForSelector('body[data-ready="true"]');
    await g.page.waitForFunction(() => document.querySelector('#view').dataset.ghost === 'on', null, { timeout: 10000 }).catch(() => {});
    const withGhost = await pixels(g.page);
    check('comparing with another entry shows its pose as a ghost on the same rig',
      (await g.page.evaluate(() => document.querySelector('#view').dataset.ghost)) === 'on' && withGhost.digest !== alone.digest,
      `${alone.digest} ${withGhost.digest}`);
    await g.page.locator('#view-box').screenshot({ path: join(shots, 'view-compare.png') });
    await g.page.close();
    check('the page made no error', errors.length === 0, errors.slice(0, 3).join(' | '));
    await page.close();

    // --- the bone list: the tree, found by name, animated only; a bone chosen there selects
    // its joint and charts its tracks, a track ticked chooses its bone
    {
      const t = await openEntry(browser, `${base}/?id=${tree}`);
      const list = () => t.page.evaluate(() => [...document.querySelectorAll('#bones li')].map((li) =>
        `${li.querySelector('.bone').firstChild.textContent}${li.querySelector(':scope > .bone').classList.contains('context') ? '(context)' : ''}`));
      await t.page.waitForFunction(() => document.querySelectorAll('#bones li').length === 2, null, { timeout: 10000 }).catch(() => {});
      const nested = await t.page.evaluate(() => !!document.querySelector('#bones > li > ul > li'));
      check('the bone list shows the rig as a tree', (await list()).join(',') === 'hips,spine' && nested, (await list()).join(','));
      await t.page.fill('#bone-filter', 'spi');
      const found = await list();
      await t.page.fill('#bone-filter', 'nothing of the kind');
      const none = await list();
      check('a name found keeps the bones above it, dimmed', found.join(',') === 'hips(context),spine' && none.length === 0,
        `${found} / ${none}`);
      await t.page.fill('#bone-filter', '');
      await t.page.click('#bones li[data-node="0"] > .bone');
      const chosen = await t.page.evaluate(() => ({
        joint: document.querySelector('#view').dataset.selected,
        charted: [...document.querySelectorAll('#tracks tbody input')].filter((b) => b.checked).map((b) => b.closest('tr').dataset.n),
        marked: document.querySelector('#bones li[aria-selected="true"]')?.dataset.node,
      }));
      check('choosing a bone selects its joint in the view and charts its tracks',
        chosen.joint === 'hips' && chosen.charted.join(',') === '0' && chosen.marked === '0', JSON.stringify(chosen));
      await t.page.check('#tracks tbody tr[data-n="1"] input');
      const back = await t.page.evaluate(() => ({
        joint: document.querySelector('#view').dataset.selected,
        marked: document.querySelector('#bones li[aria-selected="true"] > .bone')?.firstChild.textContent,
      }));
      check('ticking a track chooses its bone in the list and the view', back.joint === 'spine' && back.marked === 'spine',
        JSON.stringify(back));
      // F frames the chosen bone: the camera turns about its joint, as the link then says
      const camBefore = new URL(t.page.url()).searchParams.get('cam');
      await t.page.evaluate(() => document.querySelector('#view').focus());
      await t.page.keyboard.press('f');
      await t.page.waitForFunction((before) => {
        const cam = new URL(location.href).searchParams.get('cam');
        return cam && cam !== before;
      }, camBefore, { timeout: 10000 }).catch(() => {});
      const framed = await t.page.evaluate(() => ({
        target: (new URL(location.href).searchParams.get('cam') || '').split(',').slice(3).map(Number),
        joint: document.querySelector('#joints tbody tr[data-node="1"]')?.dataset.world.split(' ').map(Number),
      }));
      check('F turns the camera about the chosen bone\'s joint', framed.joint && framed.target.length === 3
        && framed.target.every((v, i) => Math.abs(v - framed.joint[i]) < 1e-4), JSON.stringify(framed));
      const groups = await t.page.evaluate(() => [...document.querySelectorAll('#tracks tr.group th')].map((h) => h.textContent));
      check('the tracks are grouped by the bone they move', groups.length === 2 && /^hips/.test(groups[0]) && /^spine/.test(groups[1]),
        groups.join(' | '));
      check('the bone list made no error', t.errors.length === 0, t.errors.slice(0, 3).join(' | '));
      await t.page.close();
      // an Animation_Z on its Skel_Z: "animated only" keeps the bones its tracks move
      const a = await openEntry(browser, `${base}/?id=${run}`);
      const counts = () => a.page.evaluate(() => ({
        all: document.querySelectorAll('#bones li').length,
        wanted: document.querySelectorAll('#bones li > .bone:not(.context)').length,
        moved: Number(document.querySelector('#coverage').dataset.matched),
      }));
      const before = await counts();
      await a.page.check('#animated-only');
      const after = await counts();
      check('"animated only" keeps the bones the tracks move (the bones above them dimmed)',
        before.all === 4 && before.wanted === 4 && after.wanted === before.moved && before.moved === 2 && after.all < 4 + 1,
        `${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
      await a.page.close();
      // a skeleton: its tree instead of an empty chart
      const s = await openEntry(browser, `${base}/?id=${hero}`);
      const skeleton = await s.page.evaluate(() => ({
        bones: document.querySelectorAll('#bones li').length,
        chart: document.querySelector('#chart-part').hidden,
      }));
      check('a skeleton entry shows its bone tree instead of an empty chart', skeleton.bones === 4 && skeleton.chart,
        JSON.stringify(skeleton));
      // and nothing to play: the rig at rest, no timeline, no Play, Space plays nothing
      await s.page.locator('#view').click();
      await s.page.keyboard.press('Space');
      const still = await s.page.evaluate(() => ({
        view: !document.querySelector('#view-box').hidden,
        timeline: document.querySelector('#timeline').hidden,
        playback: document.querySelector('#playback').hidden,
        playing: document.querySelector('#play').getAttribute('aria-pressed'),
      }));
      check('an entry with nothing to play is shown at rest with no timeline or Play', still.view && still.timeline && still.playback
        && still.playing === 'false', JSON.stringify(still));
      await s.page.close();
    }

    // --- "Frame all" frames what is shown: the mesh (the head's triangle, as the pose places it),
    // the skeleton (its joints), or both
    {
      const f = await openEntry(browser, `${base}/?id=${tree}`);
      await f.page.waitForFunction(() => !document.querySelector('#view-mode').disabled, null, { timeout: 15000 }).catch(() => {});
      const mode = await f.page.locator('#view-mode').inputValue();
      check('a mesh shows at once, with its bones over it', mode === 'both', mode);
      const frameIn = async (shown) => {
        await f.page.selectOption('#view-mode', shown);
        await f.page.click('#frame-all');
        return (await f.page.locator('#view').getAttribute('data-framed')).split(',').map(Number);
      };
      const t = Number(await f.page.evaluate(() => document.querySelector('#joints').dataset.time));
      const pose = await (await fetch(`${base}/api/resources/${tree}/pose?t=${t}`)).json();
      // the triangle (0,0,0) (0.3,0,0) (0,0.3,0) of "head", 0.6 above "spine", by spine's world matrix
      const spine = pose.poses[0].world[pose.nodes.findIndex((n) => n.name === 'spine')];
      const corners = [[0, 0.6, 0], [0.3, 0.6, 0], [0, 0.9, 0]].map(([x, y, z]) =>
        [0, 1, 2].map((r) => spine[r] * x + spine[4 + r] * y + spine[8 + r] * z + spine[12 + r]));
      const meshBox = [0, 1, 2].map((c) => Math.min(...corners.map((p) => p[c])))
        .concat([0, 1, 2].map((c) => Math.max(...corners.map((p) => p[c]))));
      const joints = pose.poses[0].world.map((w) => [w[12], w[13], w[14]]);
      const jointBox = [0, 1, 2].map((c) => Math.min(...joints.map((p) => p[c])))
        .concat([0, 1, 2].map((c) => Math.max(...joints.map((p) => p[c]))));
      const near = (a, b) => a.length === 6 && a.every((v, i) => Math.abs(v - b[i]) < 1e-4);
      const mesh = await frameIn('mesh');
      // glTF's default material is fully metallic: lit by the view's sky, not drawn black
      const dark = await pixels(f.page);
      check('a mesh of glTF\'s default (metallic) material is lit, not black', dark.drawn > 1000 && dark.black < dark.drawn / 50,
        `${dark.black} near black of ${dark.drawn} drawn`);
      const bones = await frameIn('skeleton'), both = await frameIn('both');
      // the skeleton's box: its joints and the bones drawn from them (a leaf's bone reaches past it)
      const holds = (box, inner) => [0, 1, 2].every((c) => box[c] <= inner[c] + 1e-4 && box[c + 3] >= inner[c + 3] - 1e-4);
      const union = meshBox.map((v, i) => (i < 3 ? Math.min(v, bones[i]) : Math.max(v, bones[i])));
      check('"Frame all" frames the mesh when the mesh is shown, the skeleton when it is, both when both are',
        near(mesh, meshBox) && holds(bones, jointBox) && !holds(bones, meshBox) && near(both, union),
        `mesh ${mesh} / ${meshBox.map((v) => v.toFixed(4))}; skeleton ${bones} / ${jointBox}; both ${both}`);
      // the entry's layout: the view, the timeline and the chart at the top, its details below
      const tops = await f.page.evaluate(() => Object.fromEntries(['#view-box', '#timeline', '#chart', '#tracks', '#entry-summary']
        .map((s) => [s, document.querySelector(s).getBoundingClientRect().top + scrollY])));
      check('an entry opens with the view, the timeline and the chart above its tracks and details',
        Math.max(tops['#view-box'], tops['#timeline'], tops['#chart']) < tops['#tracks'] && tops['#tracks'] < tops['#entry-summary'],
        JSON.stringify(tops));
      check('Frame all made no error', f.errors.length === 0, f.errors.slice(0, 3).join(' | '));
      await f.page.close();
      // opened from the list, the entry's view is on screen at once
      const l = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      await l.goto(base);
      await l.waitForSelector('body[data-ready="true"]');
      await l.click(`#catalogue tbody tr[data-id="${tree}"]`);
      await entryShown(l, tree).catch(() => {});
      const onScreen = await l.evaluate(() => {
        const r = document.querySelector('#view-box').getBoundingClientRect();
        return { top: r.top, bottom: r.bottom, height: innerHeight };
      });
      check('an entry opened from the list shows its view without a scroll', onScreen.top >= 0 && onScreen.bottom <= onScreen.height,
        JSON.stringify(onScreen));
      await l.close();
    }

    // --- "Frame all" on a skinned mesh frames it where its bones have moved it
    {
      const k = await openEntry(browser, `${base}/?id=${skinned}&t=1`);
      await k.page.waitForFunction(() => !document.querySelector('#view-mode').disabled, null, { timeout: 15000 }).catch(() => {});
      await k.page.selectOption('#view-mode', 'mesh');
      await k.page.click('#frame-all');
      const framed = (await k.page.locator('#view').getAttribute('data-framed') || '').split(',').map(Number);
      const at = await viewTime(k.page);
      const want = [0.5, 1, 0, 1.5, 2, 0]; // the triangle at rest, moved 1 along x with its joint
      check('"Frame all" frames a skinned mesh where its bones have moved it', at === 1 && framed.length === 6
        && framed.every((v, i) => Math.abs(v - want[i]) < 1e-4), `t=${at}: ${framed}`);
      check('the skinned mesh made no error', k.errors.length === 0, k.errors.slice(0, 3).join(' | '));
      await k.page.close();
    }

    // --- bones drawn over the mesh: a rig behind a quad shows as much of its animated joints in
    // "both" as it does alone
    {
      const c = await openEntry(browser, `${base}/?id=${curtain}`);
      await c.page.waitForFunction(() => !document.querySelector('#view-mode').disabled, null, { timeout: 15000 }).catch(() => {});
      await c.page.click('#frame-all');
      const blue = () => c.page.evaluate(() => {
        const source = document.querySelector('#view'), canvas = document.createElement('canvas');
        canvas.width = source.width; canvas.height = source.height;
        const g = canvas.getContext('2d');
        g.drawImage(source, 0, 0);
        const data = g.getImageData(0, 0, canvas.width, canvas.height).data;
        let n = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i + 2] > data[i] + 80 && data[i + 2] > data[i + 1] + 40) n++;
        return n;
      });
      const over = await blue();
      await c.page.locator('#view-box').screenshot({ path: join(shots, 'view-bones-over-mesh.png') });
      await c.page.selectOption('#view-mode', 'mesh');
      const hidden = await blue();
      await c.page.selectOption('#view-mode', 'skeleton');
      const alone = await blue();
      check('the bones are drawn over the mesh that stands in front of them', alone > 30 && hidden < alone / 10 && over >= alone * 0.8,
        `animated joints' pixels: ${over} with the mesh, ${alone} alone, ${hidden} with the mesh alone`);
      await c.page.close();
    }

    // --- the view's frames at the source's rate: 24 a second where the keys sit on 24ths, 30 where
    // they say nothing (keys on whole seconds)
    {
      const r = await openEntry(browser, `${base}/?id=${film}`);
      const rate = await r.page.evaluate(() => [document.querySelector('#fps').value, document.querySelector('#fps-source').textContent]);
      const before = await viewTime(r.page);
      await r.page.evaluate(() => document.querySelector('#view').focus());
      await r.page.keyboard.press('.');
      await r.page.waitForFunction((t) => Number(document.querySelector('#joints').dataset.time) !== t
        && document.querySelector('#view').dataset.playing === 'false', before, { timeout: 5000 }).catch(() => {});
      const stepped = await viewTime(r.page);
      check('a clip keyed at 24 frames a second steps and ticks at 24', rate[0] === '24' && /keys' rate/.test(rate[1])
        && Math.abs(stepped - before - 1 / 24) < 1e-4, `${rate}, ${before} -> ${stepped}`);
      await r.page.close();
      const w = await openEntry(browser, `${base}/?id=${tree}`);
      const plain = await w.page.evaluate(() => [document.querySelector('#fps').value, document.querySelector('#fps-source').textContent]);
      check('keys on whole seconds leave the frames at 30 a second', plain[0] === '30' && plain[1] === '', plain.join(' '));
      await w.page.close();
    }

    // --- the timeline: a row of key ticks a charted track, drag to scrub, shift-drag for a loop
    // range that playing keeps to, and the dope sheet's keys
    {
      const t = await openEntry(browser, `${base}/?id=${tree}&tracks=0,1`);
      const tl = t.page.locator('#timeline');
      await t.page.waitForFunction(() => document.querySelector('#timeline').dataset.rows === '2', null, { timeout: 10000 }).catch(() => {});
      const rows = await tl.getAttribute('data-rows');
      check('the timeline has a row of key ticks for each charted track', rows === '2', `rows ${rows}`);
      await tl.scrollIntoViewIfNeeded();
      const box = await tl.boundingBox();
      const at = (u) => box.x + box.width * u;
      await t.page.mouse.move(at(0.75), box.y + 8);
      await t.page.mouse.down();
      await t.page.mouse.move(at(0.25), box.y + 8, { steps: 4 });
      await t.page.mouse.up();
      await waitStill(t.page);
      const scrubbed = await viewTime(t.page);
      check('dragging on the timeline puts the view where the button is let go', Math.abs(scrubbed - 0.5) < 0.02, `t=${scrubbed}`);
      await t.page.keyboard.down('Shift');
      await t.page.mouse.move(at(0.5), box.y + 8);
      await t.page.mouse.down();
      await t.page.mouse.move(at(0.75), box.y + 8, { steps: 3 });
      await t.page.mouse.up();
      await t.page.keyboard.up('Shift');
      const loop = (await tl.getAttribute('data-loop')).split(' ').map(Number);
      check('shift-dragging sets a loop range', Math.abs(loop[0] - 1) < 0.02 && Math.abs(loop[1] - 1.5) < 0.02, loop.join(' '));
      await t.page.evaluate(() => document.activeElement.blur());
      await t.page.keyboard.press('Home');
      await t.page.waitForFunction((lo) => Math.abs(Number(document.querySelector('#view').dataset.time) - lo) < 0.02,
        loop[0], { timeout: 5000 }).catch(() => {});
      await waitStill(t.page);
      const home = await viewTime(t.page);
      await t.page.keyboard.press('l');
      const seen = [];
      for (let i = 0; i < 12; i++) {
        await t.page.waitForTimeout(0); // yield; the samples are taken as the frames come
        await t.page.waitForFunction((n) => Number(document.querySelector('#view').dataset.time) !== n, seen.at(-1) ?? home,
          { timeout: 5000 }).catch(() => {});
        seen.push(await viewTime(t.page));
      }
      const playing = await t.page.evaluate(() => document.querySelector('#view').dataset.playing);
      await t.page.keyboard.press('k');
      await waitStill(t.page);
      const inside = seen.every((v) => v >= loop[0] - 1e-6 && v <= loop[1] + 1e-6);
      check('Home goes to the loop\'s start, L plays within the loop range, K pauses',
        Math.abs(home - loop[0]) < 0.02 && playing === 'true' && inside && seen.length > 3, `home ${home}, ${seen.join(' ')}`);
      await t.page.keyboard.press('End');
      await t.page.waitForFunction((hi) => Math.abs(Number(document.querySelector('#view').dataset.time) - hi) < 0.02,
        loop[1], { timeout: 5000 }).catch(() => {});
      await waitStill(t.page);
      const endTime = await viewTime(t.page);
      await t.page.keyboard.press(',');
      await t.page.waitForFunction((hi) => Number(document.querySelector('#view').dataset.time) < hi - 0.01,
        endTime, { timeout: 5000 }).catch(() => {});
      await waitStill(t.page);
      const back = await viewTime(t.page);
      check('End goes to the loop\'s end and comma steps a frame back', Math.abs(endTime - loop[1]) < 0.02
        && Math.abs(endTime - back - 1 / 30) < 1e-3, `${endTime} ${back}`);
      await t.page.keyboard.press('j');
      const reverse = [];
      for (let i = 0; i < 6; i++) {
        await t.page.waitForFunction((n) => Number(document.querySelector('#view').dataset.time) !== n, reverse.at(-1) ?? back,
          { timeout: 5000 }).catch(() => {});
        reverse.push(await viewTime(t.page));
      }
      await t.page.keyboard.press('k');
      check('J plays back', reverse[0] < back && reverse.some((v, i) => i > 0 && v < reverse[i - 1]), `${back}: ${reverse.join(' ')}`);
      // the shortcuts after a button is clicked; L again plays faster, J turns round at that
      // speed; a text field keeps them
      const playback = () => t.page.evaluate(() => { const v = document.querySelector('#view').dataset; return `${v.playing} ${v.direction} ${v.speed}`; });
      const until = (want) => t.page.waitForFunction((w) => { const v = document.querySelector('#view').dataset; return `${v.playing} ${v.direction} ${v.speed}` === w; },
        want, { timeout: 5000 }).then(() => want, async () => playback());
      await t.page.click('#frame-all');
      await t.page.keyboard.press('l');
      const forward = await until('true 1 1');
      await t.page.keyboard.press('l');
      const faster = await until('true 1 2');
      await t.page.keyboard.press('j');
      const turned = await until('true -1 2');
      await t.page.keyboard.press('k');
      const stopped = await until('false -1 2');
      check('after a button is clicked, L plays, L again twice as fast, J turns round at that speed, K pauses',
        forward === 'true 1 1' && faster === 'true 1 2' && turned === 'true -1 2' && stopped === 'false -1 2'
          && await t.page.locator('#speed').inputValue() === '2', `${forward}, ${faster}, ${turned}, ${stopped}`);
      await t.page.click('#play');
      await until('true 1 2');
      await t.page.keyboard.press('Space'); // its keyup, when a button's click would come, is done here
      await waitStill(t.page);
      const paused = await playback();
      await t.page.focus('#fps');
      await t.page.keyboard.press('l');
      await waitStill(t.page);
      const kept = await playback();
      check('Space after Play is clicked pauses (the button not pressed again); a text field keeps the keys',
        paused === 'false 1 2' && kept === 'false 1 2', `${paused}, ${kept}`);
      await t.page.selectOption('#speed', '1');
      await t.page.dblclick('#timeline');
      check('a double-click clears the loop range', (await tl.getAttribute('data-loop')) === '');
      check('the timeline made no error', t.errors.length === 0, t.errors.slice(0, 3).join(' | '));
      await t.page.locator('#motion').screenshot({ path: join(shots, 'view-timeline.png') });
      await t.page.close();
    }

    // --- the chart a person reads: rotations as Euler degrees on their own axis (as three.js's
    // Euler turns the API's quaternions), legends naming the bone and the channel, the
    // quaternions one click away
    {
      const c = await openEntry(browser, `${base}/?id=${tree}&tracks=1`);
      const curves = () => c.page.evaluate(() => Chart.getChart(document.querySelector('#chart')).data.datasets
        .filter((d) => !d.label.endsWith(' keys') && !d.compared).map((d) => ({ label: d.label, axis: d.yAxisID, data: d.data })));
      const shown = await curves();
      const worst = await c.page.evaluate(async ({ id, shown }) => {
        const THREE = await import('/vendor/three/build/three.module.js');
        const lo = shown[0].data[0].x, hi = shown[0].data.at(-1).x;
        const api = await (await fetch(`/api/resources/${id}/tracks/1/sample?from=${lo}&to=${hi}&count=${shown[0].data.length}`)).json();
        let most = 0;
        api.values.forEach((q, i) => {
          const e = new THREE.Euler().setFromQuaternion(new THREE.Quaternion(...q).normalize(), 'XYZ');
          [e.x, e.y, e.z].forEach((a, k) => { most = Math.max(most, Math.abs((a * 180) / Math.PI - shown[k].data[i].y)); });
        });
        return most;
      }, { id: tree, shown });
      check('rotations are charted as Euler angles in degrees, as three.js turns the quaternions, on their own axis',
        shown.length === 3 && shown.every((d) => d.axis === 'degrees') && worst < 1e-3, `${shown.map((d) => d.label)} worst ${worst}`);
      check('a curve\'s legend names its bone and channel', shown[0].label === 'spine rotation x (°)', shown[0].label);
      await c.page.click('#rotation-view');
      await c.page.waitForFunction(() => Chart.getChart(document.querySelector('#chart')).data.datasets
        .filter((d) => !d.label.endsWith(' keys')).length === 4, null, { timeout: 10000 }).catch(() => {});
      const quaternion = await curves();
      check('the quaternions are one click away', quaternion.length === 4 && quaternion[3].label === 'spine rotation w',
        quaternion.map((d) => d.label).join(', '));
      check('the chart made no error', c.errors.length === 0, c.errors.slice(0, 3).join(' | '));
      await c.page.close();
    }

    // --- a .gltf with its .bin and its texture, uploaded together as a modder drops them: the
    // mesh shows with its texture; without the image file it shows bare, and says why
    {
      const f32 = (a) => Buffer.from(new Float32Array(a).buffer);
      const bin = Buffer.concat([f32([0, 1]), f32([0, 0, 0, 0, 0.5, 0]), f32([0, 0, 0, 1, 0, 0, 0, 1, 0]), f32([0, 0, 1, 0, 0, 1])]);
      const gltf = (image) => Buffer.from(JSON.stringify({
        asset: { version: '2.0' }, scene: 0, scenes: [{ nodes: [0] }],
        nodes: [{ name: 'plate', mesh: 0 }],
        meshes: [{ primitives: [{ attributes: { POSITION: 2, TEXCOORD_0: 3 }, material: 0 }] }],
        materials: [{ pbrMetallicRoughness: { baseColorTexture: { index: 0 } } }],
        textures: [{ source: 0 }], images: [{ uri: image }],
        buffers: [{ uri: 'plate.bin', byteLength: bin.length }],
        bufferViews: [{ buffer: 0, byteLength: 8 }, { buffer: 0, byteOffset: 8, byteLength: 24 },
          { buffer: 0, byteOffset: 32, byteLength: 36 }, { buffer: 0, byteOffset: 68, byteLength: 24 }],
        accessors: [{ bufferView: 0, componentType: 5126, count: 2, type: 'SCALAR', min: [0], max: [1] },
          { bufferView: 1, componentType: 5126, count: 2, type: 'VEC3' },
          { bufferView: 2, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [1, 1, 0] },
          { bufferView: 3, componentType: 5126, count: 3, type: 'VEC2' }],
        animations: [{ samplers: [{ input: 0, output: 1 }], channels: [{ sampler: 0, target: { node: 0, path: 'translation' } }] }],
      }));
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
      const together = async (files) => {
        const form = new FormData();
        for (const [name, bytes] of files) form.append('file', new Blob([bytes]), name);
        const answer = await (await fetch(`${base}/api/resources`, { method: 'POST', body: form })).json();
        return answer.resources[0].id;
      };
      const textured = await together([['plate.gltf', gltf('plate skin.png')], ['plate.bin', bin], ['plate skin.png', png]]);
      const bare = await together([['bare.gltf', gltf('bare.png')], ['plate.bin', bin]]);
      const p = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      const missing = [];
      p.on('response', (r) => { if (r.status() === 404) missing.push(r.url()); });
      await p.goto(`${base}/?id=${textured}`);
      await p.waitForSelector('body[data-ready="true"]');
      await p.waitForFunction(() => !document.querySelector('#view-mode').disabled, null, { timeout: 15000 }).catch(() => {});
      const shown = await p.evaluate(() => ({ textures: document.querySelector('#view-mode').dataset.textures,
        message: document.querySelector('#view-message').hidden ? '' : document.querySelector('#view-message').textContent }));
      check('a .gltf uploaded with its .bin and its image shows its mesh with the texture, asking for no file it lacks',
        shown.textures === '1' && !shown.message && missing.length === 0, `${JSON.stringify(shown)} 404: ${missing.join(' ')}`);
      await p.goto(`${base}/?id=${bare}`);
      await p.waitForSelector('body[data-ready="true"]');
      await p.waitForFunction(() => !document.querySelector('#view-mode').disabled, null, { timeout: 15000 }).catch(() => {});
      const without = await p.evaluate(() => ({ mesh: !document.querySelector('#view-mode').disabled,
        message: document.querySelector('#view-message').textContent }));
      check('without its image the mesh shows bare, and the page says which file to upload',
        without.mesh && /without its texture \(bare\.png\)/.test(without.message), JSON.stringify(without));
      await p.close();
    }

    // --- the catalogue's File column: a file's clips after the first say "same file"
    {
      const p = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      await p.goto(base);
      await p.waitForSelector('body[data-ready="true"]');
      const files = await p.evaluate(() => [...document.querySelectorAll('#catalogue tbody tr')]
        .map((r) => r.querySelector('td.file').textContent).filter((f) => f === 'tree.glb' || /same file/.test(f)));
      // the mark is one every font has: Windows' WGL4 set's up arrow, not a CJK ditto mark
      check('the catalogue shows each entry\'s file, the clips of one file grouped, marked in any font', files.includes('tree.glb')
        && files.some((f) => /same file/.test(f)) && files.every((f) => f === 'tree.glb' || f === '\u2191 same file'), files.join(' | '));
      // the joint's tooltip reads in both colour schemes: WCAG's contrast of 4.5 or more
      const contrasts = [];
      for (const colorScheme of ['light', 'dark']) {
        await p.emulateMedia({ colorScheme });
        contrasts.push(await p.evaluate(() => {
          const style = getComputedStyle(document.querySelector('#view-tip'));
          const luminance = (css) => {
            const [r, g, b] = css.match(/\d+(\.\d+)?/g).slice(0, 3).map((v) => Number(v) / 255)
              .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
            return 0.2126 * r + 0.7152 * g + 0.0722 * b;
          };
          const [a, b] = [luminance(style.color), luminance(style.backgroundColor)].sort((x, y) => y - x);
          return (a + 0.05) / (b + 0.05);
        }));
      }
      check('the joint\'s tooltip reads in the light and the dark scheme', contrasts.every((c) => c >= 4.5),
        contrasts.map((c) => c.toFixed(2)).join(', '));
      await p.close();
    }

    // --- a clip no skeleton fits is not posed on an unrelated one: the view waits, and says so
    {
      const lost = await upload(base, 'lost.json', Buffer.from(JSON.stringify({
        name: 'lost', duration: 1,
        targets: [{ schema: 'E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3', object: 0, name: 'no such bone anywhere' }],
        samplers: [{ value: { type: 'FLOAT3' }, interpolation: 'LINEAR', times: [0, 1], values: [0, 0, 0, 1, 0, 0] }],
        channels: [{ target: 0, property: 1, sampler: 0 }],
      })));
      const p = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
      await p.goto(`${base}/?id=${lost}`);
      await p.waitForSelector('body[data-ready="true"]');
      await p.waitForFunction(() => /No skeleton in the catalogue/.test(document.querySelector('#view-message').textContent), null,
        { timeout: 10000 }).catch(() => {});
      const state = await p.evaluate(() => ({ chosen: document.querySelector('#skeleton-choice').value,
        offered: document.querySelectorAll('#skeleton-choice option').length,
        message: document.querySelector('#view-message').textContent,
        idle: ['#frame-all', '#view-mode-box', '#view-box'].filter((s) => document.querySelector(s).offsetParent !== null) }));
      check('a clip no skeleton fits is posed on none, says so, and offers no skeleton that fits none of its targets',
        state.chosen === 'none' && state.offered === 1 && /No skeleton in the catalogue/.test(state.message), JSON.stringify(state));
      check('with no rig chosen, the view\'s controls that need one are not shown', state.idle.length === 0, state.idle.join(', '));
      await p.close();
    }

    // --- a Zouna animation on its Skel_Z, its bones named by a name list pasted into the page
    const z = await openEntry(browser, `${base}/?id=${run}`);
    const boneNames = () => z.page.evaluate(() => [...document.querySelectorAll('#bones .bone')].map((b) => b.firstChild.textContent));
    const legends = () => z.page.evaluate(() => Chart.getChart('chart').data.datasets.map((d) => d.label));
    const unnamed = await boneNames();
    await z.page.locator('#names-box summary').click();
    await z.page.fill('#names-text', 'ROOT\nBip01 Pelvis\nBip01 Spine\nBip01 Head\n');
    await z.page.click('#names-form button[type="submit"]');
    await z.page.waitForFunction(() => document.querySelector('#names-status').dataset.done === '1', null, { timeout: 10000 }).catch(() => {});
    await z.page.waitForFunction(() => document.querySelector('#view').dataset.sweep !== undefined, null, { timeout: 20000 });
    await z.page.waitForFunction(() => document.querySelectorAll('#joints tbody tr').length > 0);
    const named = await boneNames(), legend = await legends();
    check('a name list pasted into the page names a Zouna rig\'s bones in the bone list and the chart at once',
      unnamed.every((n) => /^0x[0-9A-F]{8}$/.test(n)) && named.join(',') === 'ROOT,Bip01 Pelvis,Bip01 Spine,Bip01 Head'
      && legend.some((l) => l.startsWith('Bip01 Pelvis rotation')), `${unnamed} -> ${named}; ${legend[0]}`);
    // one name for a bone everywhere: its name first, its handle after (where there is room);
    // a bone no list names by its handle alone, as the bone list calls it
    await z.page.waitForFunction(() => /^Bip01 Pelvis rotation/.test(document.querySelector('#tracks tbody tr[data-n="0"] td:nth-child(3)').textContent),
      null, { timeout: 10000 }).catch(() => {});
    const named3 = await z.page.evaluate(() => ({
      rows: [...document.querySelectorAll('#tracks tbody tr[data-n] td:nth-child(3)')].map((td) => td.textContent),
      groups: [...document.querySelectorAll('#tracks tbody tr.group th')].map((th) => th.textContent.split(' · ')[0]),
      editor: [...document.querySelectorAll('#edit-track option')].map((o) => o.textContent),
      bones: [...document.querySelectorAll('#bones .bone')].map((b) => b.firstChild.textContent) }));
    const handleOf = (name) => `0x${(unnamed[named.indexOf(name)] || '').slice(2)}`;
    check('a bone is called one way in the tracks, their groups, the key editor and the bone list',
      named3.rows[0] === `Bip01 Pelvis rotation (${handleOf('Bip01 Pelvis')})` && named3.rows[1] === `Bip01 Spine translation (${handleOf('Bip01 Spine')})`
      && /^0x[0-9A-F]{8} translation$/.test(named3.rows[2]) && named3.groups.join() === `Bip01 Pelvis,Bip01 Spine,${named3.rows[2].split(' ')[0]}`
      && named3.editor[0] === `0 ${named3.rows[0]}` && named3.bones.includes('Bip01 Pelvis') && named3.groups.every((g) => !/^bone /.test(g)),
      JSON.stringify(named3));
    const coverage = await z.page.locator('#coverage').innerText();
    check('an Animation_Z is posed on the best skeleton, its coverage shown', /2 of 3 bones/.test(coverage)
      && (await z.page.locator('#skeleton-choice').inputValue()) === String(hero), coverage);
    m = await jointsMatchPose(z.page, base, run, hero);
    check('Joints at t equals pose on the Skel_Z', m.ok && m.rows === 4, m.why);
    await z.page.evaluate(() => { const s = document.querySelector('#scrub'); s.value = '250'; s.dispatchEvent(new Event('input')); });
    await z.page.waitForFunction(() => Number(document.querySelector('#joints').dataset.time) > 0.4);
    m = await jointsMatchPose(z.page, base, run, hero);
    check('after scrubbing, Joints at t equals pose on the Skel_Z', m.ok, m.why);
    check('the Skel_Z is drawn', (await pixels(z.page)).drawn > 100);
    await z.page.locator('#view-box').screenshot({ path: join(shots, 'view-zouna.png') });
    // the entry as it opens (the README's picture): the view, the timeline and the chart on top
    await z.page.evaluate(() => document.querySelector('#entry').scrollIntoView({ block: 'start' }));
    await z.page.screenshot({ path: join(shots, 'entry-layout.png') });
    const shownTime = await z.page.evaluate(() => document.querySelector('#joints').dataset.time);
    const offered = await z.page.evaluate(() => [...document.querySelectorAll('#skeleton-choice option')].map((o) => o.value));
    check('an Animation_Z without a rig is offered only the skeletons that fit some of its bones',
      offered.includes(String(hero)) && offered.includes(String(spine)) && !offered.includes(String(other)), offered.join(', '));
    // the chosen bone, Bip01 Spine, is chosen still on another skeleton that has it
    await z.page.locator('#bones .bone', { hasText: 'Bip01 Spine' }).click();
    await z.page.waitForFunction(() => document.querySelector('#view').dataset.selected === 'Bip01 Spine', null, { timeout: 10000 }).catch(() => {});
    await z.page.selectOption('#skeleton-choice', String(spine));
    await z.page.waitForFunction(() => document.querySelector('#coverage').dataset.matched === '1');
    await z.page.waitForFunction((t) => document.querySelector('#joints').dataset.time === t, shownTime, { timeout: 10000 }).catch(() => {});
    const keptTime = await z.page.evaluate(() => document.querySelector('#joints').dataset.time);
    check('choosing another skeleton keeps the time shown', keptTime === shownTime && Number(shownTime) > 0.4,
      `${shownTime} -> ${keptTime}`);
    const keptBone = await z.page.evaluate(() => ({ view: document.querySelector('#view').dataset.selected,
      list: document.querySelector('#bones li[aria-selected="true"] .bone')?.firstChild.textContent }));
    check('and keeps the bone chosen, in the view and the bone list', keptBone.view === 'Bip01 Spine' && keptBone.list === 'Bip01 Spine', JSON.stringify(keptBone));
    m = await jointsMatchPose(z.page, base, run, spine);
    check('Joints at t equals pose on a skeleton with one of its bones', /1 of 3 bones/.test(await z.page.locator('#coverage').innerText())
      && m.ok && m.rows === 2, m.why);
    const rules = await z.page.evaluate(() => ({ tracks: document.querySelectorAll('#tracks tbody tr[data-n]').length,
      said: (document.querySelector('#entry').innerText.match(/last key's value/g) || []).length,
      rule: document.querySelector('#tracks-rules').textContent }));
    check('the tracks\' rule before the first key is said once, not in every row', rules.tracks > 1 && rules.said === 1
      && rules.rule === "Every track holds its last key's value before its first key, as the engine has it.", JSON.stringify(rules));
    check('the Zouna page made no error', z.errors.length === 0, z.errors.slice(0, 3).join(' | '));
    await z.page.close();
    // a link naming a skeleton of none of its bones (as one kept from before) poses it at rest and says so
    const z2 = await openEntry(browser, `${base}/?id=${run}&skeleton=${other}`);
    await z2.page.waitForFunction(() => document.querySelector('#coverage').dataset.matched === '0', null, { timeout: 10000 }).catch(() => {});
    const otherCoverage = await z2.page.locator('#coverage').innerText();
    const message = await z2.page.locator('#view-message').innerText();
    m = await jointsMatchPose(z2.page, base, run, other);
    check('a skeleton covering no bone says so, and poses at rest', /0 of 3 bones/.test(otherCoverage) && /none of the animation/.test(message)
      && m.ok && m.rows === 2, `${otherCoverage} / ${message} / ${m.why}`);
    await z2.page.close();

    // --- a Burnout vehicle's own rig, and a Radient clip posed on a glTF entry's rig
    const b = await openEntry(browser, `${base}/?id=${vehicle}`);
    m = await jointsMatchPose(b.page, base, vehicle);
    check('a Burnout vehicle shows its root, parts and wheels', m.ok && m.rows === 7 && (await pixels(b.page)).drawn > 100, m.why);
    await b.page.locator('#view-box').screenshot({ path: join(shots, 'view-burnout.png') });
    await b.page.close();
    // a vehicle whose state animation names no part: drawn at rest, and the page says why
    const b2 = await openEntry(browser, `${base}/?id=${stillVehicle}`);
    await b2.page.waitForFunction(() => !document.querySelector('#view-message').hidden, null, { timeout: 10000 }).catch(() => {});
    const why = await b2.page.locator('#view-message').innerText();
    check('a Burnout vehicle whose tracks move no node says why', /track moves no node of its rig/.test(why)
      && /Vehicle Animation's state animations/.test(why), why);
    check('that page made no error', b2.errors.length === 0, b2.errors.slice(0, 3).join(' | '));
    await b2.page.close();
    const r = await openEntry(browser, `${base}/?id=${nod}`);
    const rCoverage = await r.page.locator('#coverage').innerText();
    const rSkeleton = await r.page.locator('#skeleton-choice').inputValue();
    m = await jointsMatchPose(r.page, base, nod, Number(rSkeleton));
    check('a Radient clip is posed on a glTF rig with the node it names', /1 of 1 targets/.test(rCoverage) && m.ok, `${rCoverage}; ${m.why}`);
    await r.page.locator('#view-box').screenshot({ path: join(shots, 'view-radient.png') });
    check('the Burnout and Radient pages made no error', b.errors.length + r.errors.length === 0, [...b.errors, ...r.errors].slice(0, 3).join(' | '));
    await r.page.close();
    // a BVH take: its joints played from the export, each rotation in its own channel order, where
    // the pose route puts them (at the middle of the take, a frame: the export's key)
    const t = await openEntry(browser, `${base}/?id=${take}`);
    await t.page.evaluate(() => { const s = document.querySelector('#scrub'); s.value = '500'; s.dispatchEvent(new Event('input')); });
    await t.page.waitForFunction(() => Number(document.querySelector('#joints').dataset.time) > 0.9);
    const table = await t.page.evaluate(() => ({
      time: document.querySelector('#joints').dataset.time,
      rows: [...document.querySelectorAll('#joints tbody tr')].map((row) => ({ node: Number(row.dataset.node), world: row.dataset.world.split(' ').map(Number) })),
    }));
    const takePose = await (await fetch(`${base}/api/resources/${take}/pose?t=${table.time}`)).json();
    let worst = 0;
    for (const row of table.rows) {
      const w = takePose.poses[0].world[takePose.nodes.findIndex((x) => x.source === row.node)];
      for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(w[12 + c] - row.world[c]));
    }
    check('a BVH take plays on its joints where the pose route puts them (three channel orders)',
      table.rows.length === 6 && Math.abs(Number(table.time) - 1) < 1e-6 && worst <= 1e-5 * 16.5,
      `${table.rows.length} joints at t=${table.time}, largest difference ${worst}`);
    check('the BVH take is drawn', (await pixels(t.page)).drawn > 100);
    check('the BVH page made no error', t.errors.length === 0, t.errors.slice(0, 3).join(' | '));
    await t.page.close();
    // a phone's width: the Skeleton select (offering the long-named skeleton to retarget onto),
    // the batch's skeleton, "Laid out like" and its report shorten or wrap, the page does not
    // scroll sideways
    for (const [what, id] of [['a glTF rig', tree], ['an Animation_Z', run]]) {
      const n = await openEntry(browser, `${base}/?id=${id}`, { width: 390, height: 800 });
      const wide = await n.page.evaluate(() => ({ page: document.documentElement.scrollWidth,
        longest: Math.max(...[...document.querySelectorAll('#skeleton-choice option, #export-skeleton option')].map((o) => o.textContent.length)) }));
      check(`${what}'s page at 390 px wide does not scroll sideways`, wide.page <= 390 && wide.longest > 60, JSON.stringify(wide));
      await n.page.close();
    }
  } finally {
    await browser.close();
  }

  // --- without WebGL: the page says so, and the chart works
  const plain = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...chromiumArgs, '--disable-webgl', '--disable-3d-apis'] });
  try {
    const page = await plain.newPage({ viewport: { width: 1280, height: 900 } });
    await page.goto(`${base}/?id=${tree}`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForFunction(() => !document.querySelector('#view-message').hidden, null, { timeout: 10000 }).catch(() => {});
    const message = await page.locator('#view-message').innerText();
    const charted = await page.evaluate(() => !!Chart.getChart('chart') && Chart.getChart('chart').data.datasets.length > 0);
    check('without WebGL the page says so and still charts', /no WebGL/.test(message) && charted, `${message} / chart ${charted}`);
    await page.screenshot({ path: join(shots, 'view-no-webgl.png') });
  } finally {
    await plain.close();
    child.kill('SIGTERM');
  }
}

let died = false;
try {
  await main();
} catch (e) {
  console.log(`FAIL: view: the browser test could not run to its end (${e.stack})`);
  died = true;
}
rmSync(dir, { recursive: true, force: true });
process.exit(planned.failures() || died ? 1 : 0);
