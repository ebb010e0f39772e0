// retarget.test.mjs: the page's other skeletons, in Debian's Chromium
// (tests/scripts/retarget_page.sh), on a real animdexd: a BVH take (tests/data/bvh/
// three_orders.bvh) and a glTF skeleton of the same joints under Mixamo's names, its bones
// turned other ways. Chosen, the skeleton moves nothing until "retargeted" is ticked; then the
// view plays the take retargeted (its "Joints at t" equal to GET .../pose?retarget=1), the bone
// map is shown, a pair dropped and the map saved as a BoneMap entry the view then uses, and
// "Download as glTF" and "Download for the game" give the retargeted clip. And an Animation_Z
// shown on its Skel_Z (tests/browser/rig_files) downloads as glTF on that skeleton's tree, which
// uploaded again poses as the view did; the catalogue's batch export offers the skeleton too.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium } from 'playwright-core';
import { entryShown, pageStill, planChecks, runToTheEnd } from './checks.mjs';
import { chromiumArgs, startDaemon, upload } from './daemon.mjs';

const bin = process.env.ANIMDEXD;
const srcdir = process.env.ANIMDEX_SRCDIR || '.';
const shots = process.env.ANIMDEX_SCREENSHOTS || join(process.cwd(), 'tests', 'output');
const dir = mkdtempSync(join(tmpdir(), 'animdex-retarget-page-'));
const planned = planChecks(14);
const check = (name, ok, detail = '') => planned.check(`retarget page ${name}`, ok, detail);

// A rig's joints as a glTF node tree (a .glb of its JSON chunk alone), under Mixamo's names,
// each bone turned a quarter turn about z from the take's (its local axes other, its joints where
// the take's are).
function mixamoSkeleton(rig) {
  const s = Math.SQRT1_2, turn = [0, 0, s, s], back = [0, 0, -s, s];
  const mul = (a, b) => [a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1], a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3], a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]];
  const rotate = (q, v) => { const p = mul(mul(q, [...v, 0]), [-q[0], -q[1], -q[2], q[3]]); return p.slice(0, 3); };
  const nodes = rig.map((n) => ({
    name: `mixamorig:${n.name}`,
    // every bone's world axes turned by `turn`: its offset seen from its parent's turned axes
    translation: n.parent === null ? n.translation : rotate(back, n.translation),
    rotation: n.parent === null ? mul(n.rotation, turn) : mul(mul(back, n.rotation), turn),
  }));
  rig.forEach((n, i) => { if (n.parent !== null) (nodes[n.parent].children ??= []).push(i); });
  let json = Buffer.from(JSON.stringify({ asset: { version: '2.0' }, nodes, scenes: [{ nodes: [0] }], scene: 0 }));
  json = Buffer.concat([json, Buffer.alloc((4 - (json.length % 4)) % 4, 0x20)]);
  const header = Buffer.alloc(20);
  header.write('glTF', 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + json.length, 8);
  header.writeUInt32LE(json.length, 12);
  header.writeUInt32LE(0x4E4F534A, 16);
  return Buffer.concat([header, json]);
}

// "Joints at t" against GET pose?skeleton=&retarget=1 at its time: the largest difference.
async function jointsMatchRetarget(page, base, take, skeleton, map) {
  const table = await page.evaluate(() => ({
    time: document.querySelector('#joints').dataset.time,
    rows: [...document.querySelectorAll('#joints tbody tr')].map((r) => ({ node: Number(r.dataset.node), world: r.dataset.world.split(' ').map(Number) })),
  }));
  if (!table.rows.length || table.time === '') return { ok: false, why: 'the table is empty' };
  const pose = await (await fetch(`${base}/api/resources/${take}/pose?t=${table.time}&skeleton=${skeleton}&retarget=1${map ? `&map=${map}` : ''}`)).json();
  let worst = 0;
  for (const row of table.rows) {
    const w = pose.poses[0].world[pose.nodes.findIndex((x) => x.source === row.node)];
    for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(w[12 + c] - row.world[c]));
  }
  return { ok: worst <= 1e-5, why: `largest difference ${worst} over ${table.rows.length} joints at t=${table.time}` };
}

// An Animation_Z shown on its Skel_Z: "Download as glTF" is the export on that skeleton (said
// so, the bare export beside it); uploaded again, its own rig poses as the view posed it.
async function onItsSkeleton(browser, base) {
  execFileSync(join(dirname(bin), 'tests', 'browser', 'rig_files'), [dir]);
  const hero = await upload(base, 'hero.Skel_Z', readFileSync(join(dir, 'hero.Skel_Z')));
  const run = await upload(base, 'run.Animation_Z', readFileSync(join(dir, 'run.Animation_Z')));
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}/?id=${run}`);
  await page.waitForSelector('body[data-ready="true"]');
  await entryShown(page, run);
  const chosen = await page.locator('#skeleton-choice').inputValue();
  const href = await page.locator('#gltf-link').getAttribute('href');
  const label = await page.locator('#gltf-link').innerText();
  check('"Download as glTF" exports onto the skeleton shown, and says so', chosen === String(hero)
    && href === `/api/resources/${run}/export?skeleton=${hero}` && label.includes(`entry ${hero}`)
    && !(await page.locator('#gltf-bare-link').isHidden()), `${chosen}: ${href} "${label}"`);
  // "Fewer keys": both downloads reduced by object-space error, the reports in words
  // (ticked from the keyboard: the report lines above it grow and shrink as they are fetched
  // again, moving the box under a pointer)
  await page.fill('#reduce-error', '0.05');
  await page.focus('#reduce-on');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.querySelector('#reduce-on').checked);
  await page.waitForFunction(() => ['ok', 'refused'].includes(document.querySelector('#reduce-report').dataset.done)
    && /0\.05cm/.test(document.querySelector('#gltf-link').getAttribute('href')));
  await page.waitForFunction(() => document.querySelector('#native-report').dataset.done
    && /reduce=object/.test(document.querySelector('#native-link').getAttribute('href')));
  const reducedHref = await page.locator('#gltf-link').getAttribute('href');
  const reduceWords = await page.locator('#reduce-report').innerText();
  const nativeHref = await page.locator('#native-link').getAttribute('href');
  const nativeWords = await page.locator('#native-report').innerText();
  const summary = await (await fetch(`${base}${reducedHref}&summary=1`)).json();
  const r = summary.reduction && summary.reduction[0];
  check('"Fewer keys" reduces "Download as glTF" on the skeleton shown, and says what it cost',
    reducedHref === `/api/resources/${run}/export?skeleton=${hero}&reduce=object&error=0.05cm`
      && r && reduceWords.includes(`→ ${r.keys.after.toLocaleString('en')}`) && /largest error where the player sees it/.test(reduceWords)
      && r.error.largest.cm <= 0.05, `${reducedHref}: ${reduceWords}`);
  check('and "Download for the game", measured on the skeleton shown',
    nativeHref.includes('&reduce=object&error=0.05cm') && nativeHref.includes(`&skeleton=${hero}`)
      && /keys → /.test(nativeWords) && /largest error where the player sees it/.test(nativeWords), `${nativeHref}: ${nativeWords}`);
  await page.focus('#reduce-on');
  await page.keyboard.press('Space');
  await page.waitForFunction(() => document.querySelector('#reduce-report').dataset.done === 'off'
    && !/reduce=/.test(document.querySelector('#gltf-link').getAttribute('href')));
  const asset = Buffer.from(await (await fetch(`${base}${href}`)).arrayBuffer());
  const again = await upload(base, 'run-on-hero.glb', asset);
  const t = 0.5;
  const shown = await (await fetch(`${base}/api/resources/${run}/pose?t=${t}&skeleton=${hero}`)).json();
  const back = await (await fetch(`${base}/api/resources/${again}/pose?t=${t}`)).json();
  let worst = 0, matched = 0;
  shown.nodes.forEach((node, i) => {
    const j = back.nodes.findIndex((n) => n.name === node.name);
    if (j < 0) return;
    matched++;
    for (let c = 12; c < 15; c++) worst = Math.max(worst, Math.abs(shown.poses[0].world[i][c] - back.poses[0].world[j][c]));
  });
  // the asset holds the whole tree; uploaded again, its rig is the nodes its tracks move
  const doc = JSON.parse(asset.subarray(20, 20 + asset.readUInt32LE(12)).toString());
  check('uploaded again, the download poses on the skeleton\'s tree as the view did', doc.nodes.length >= shown.nodes.length
    && matched === back.nodes.length && matched >= 2 && worst < 1e-5,
    `${doc.nodes.length} nodes in the asset, ${matched} of ${back.nodes.length} posed again, largest difference ${worst}`);
  const batch = await page.evaluate(() => [...document.querySelectorAll('#export-skeleton option')].map((o) => o.value));
  await page.selectOption('#export-skeleton', String(hero));
  const batchHref = await page.locator('#export-link').getAttribute('href');
  check('the batch export offers the skeleton', batch.includes(String(hero)) && batchHref.includes(`skeleton=${hero}`)
    && errors.length === 0, `${batch}; ${batchHref}; ${errors.slice(0, 2).join(' | ')}`);
  await page.close();
}

async function main() {
  const { child, base } = await startDaemon(join(dir, 'page.db'));
  const take = await upload(base, 'three_orders.bvh', readFileSync(join(srcdir, 'tests', 'data', 'bvh', 'three_orders.bvh')));
  const rig = (await (await fetch(`${base}/api/resources/${take}`)).json()).rig;
  const skeleton = await upload(base, 'mixamo.glb', mixamoSkeleton(rig));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`); });
    await page.goto(`${base}/?id=${take}&t=1`);
    await page.waitForSelector('body[data-ready="true"]');
    await entryShown(page, take);
    await page.evaluate(() => { document.querySelector('#joints-box').open = true; });
    // the skeleton chosen: under other names, nothing of the take moves it until retargeted
    await page.selectOption('#skeleton-choice', String(skeleton));
    await pageStill(page);
    const offered = await page.evaluate(() => !document.querySelector('#retarget-box').hidden);
    check('a skeleton of other names offers "retargeted"', offered && Number(await page.locator('#coverage').getAttribute('data-matched')) === 0,
      `${offered}, ${await page.locator('#coverage').innerText()}`);
    await page.check('#retarget');
    await page.waitForFunction(() => document.querySelector('#retarget-panel').dataset.done === 'shown'
      && document.body.dataset.pending === '0', null, { timeout: 20000 });
    await page.waitForFunction(() => document.querySelectorAll('#joints tbody tr').length > 0);
    const coverage = await page.locator('#coverage').innerText();
    const paired = Number(await page.locator('#retarget-panel').getAttribute('data-map'));
    check('retargeted, the take moves the skeleton', /retargeted: \d+ bones paired/.test(coverage)
      && Number(await page.locator('#coverage').getAttribute('data-matched')) > 0 && paired >= 4, `${coverage}; ${paired} pairs`);
    let m = await jointsMatchRetarget(page, base, take, skeleton, null);
    check('Joints at t equals GET pose?retarget=1', m.ok, m.why);
    await page.evaluate(() => { document.querySelector('#retarget-panel').open = true; });
    await page.locator('#motion').screenshot({ path: join(shots, 'view-retarget.png') });
    const url = new URL(page.url());
    check('the link keeps the retarget', url.searchParams.get('retarget') === '1' && url.searchParams.get('skeleton') === String(skeleton), page.url());
    // a pair dropped (the neck at rest) and the map saved: an entry of the catalogue, used at once
    await page.selectOption('#retarget-map select[data-bone="mixamorig:Neck"]', '');
    await page.click('#retarget-save');
    await page.waitForFunction(() => ['saved', 'refused'].includes(document.querySelector('#retarget-panel').dataset.done)
      && document.body.dataset.pending === '0', null, { timeout: 20000 });
    const maps = await (await fetch(`${base}/api/resources?class=BoneMap`)).json();
    const map = maps.resources.length ? maps.resources[0].id : null;
    const report = await page.locator('#retarget-report').innerText();
    check('the edited map is saved as a BoneMap entry and the view uses it', map !== null
      && await page.locator('#retarget-panel').getAttribute('data-done') === 'saved'
      && Number(await page.locator('#retarget-panel').getAttribute('data-map')) === paired - 1
      && report.includes(`by bone map ${map}`) && new URL(page.url()).searchParams.get('map') === String(map),
      `${await page.locator('#retarget-saved').innerText()}; ${report}`);
    await page.waitForFunction(() => document.querySelectorAll('#joints tbody tr').length > 0);
    m = await jointsMatchRetarget(page, base, take, skeleton, map);
    check('Joints at t follows the saved map', m.ok, m.why);
    // the downloads give the retargeted clip
    const gltf = await page.locator('#gltf-link').getAttribute('href');
    const asset = await fetch(`${base}${gltf}`);
    const bytes = Buffer.from(await asset.arrayBuffer());
    check('"Download as glTF" gives the retargeted clip on the skeleton', asset.status === 200 && bytes.subarray(0, 4).toString() === 'glTF'
      && gltf.includes(`/retarget?onto=${skeleton}&map=${map}`), `${gltf}: ${asset.status}`);
    const native = await page.locator('#native-link').getAttribute('href');
    check('"Download for the game" writes the retargeted clip', !(await page.locator('#native-box').isHidden())
      && /\/retarget\?onto=\d+&map=\d+&format=native&as=Animation_Z/.test(native || ''), native);
    check('the page made no error', errors.length === 0, errors.slice(0, 3).join(' | '));
    await page.close();
    await onItsSkeleton(browser, base);
  } finally {
    await browser.close();
    child.kill('SIGTERM');
  }
}

await runToTheEnd('retarget page', main, planned, () => rmSync(dir, { recursive: true, force: true }));
