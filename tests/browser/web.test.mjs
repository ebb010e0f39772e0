// web.test.mjs: the web page in real Chromium (Debian's), driven by playwright-core, against a
// real animdexd on loopback with a temporary database. Prints "PASS: name" or "FAIL: name"
// per check and exits non-zero on any failure. Screenshots go to $ANIMDEX_SCREENSHOTS.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { entryShown, planChecks } from './checks.mjs';

const bin = process.env.ANIMDEXD;
const srcdir = process.env.ANIMDEX_SRCDIR || '.';
const shots = process.env.ANIMDEX_SCREENSHOTS || join(process.cwd(), 'tests', 'output');
const dir = mkdtempSync(join(tmpdir(), 'animdex-web-'));
const { check, skip, failures } = planChecks(62);

// Waits until the page has stopped moving: the element's box and the page's scroll the same in
// two animation frames running, the element within the window (an entry opened is scrolled into
// view; a resized window lays out again). A state, not a time.
async function settled(page, selector) {
  await page.waitForFunction((sel) => {
    const r = document.querySelector(sel).getBoundingClientRect();
    const key = `${window.scrollX},${window.scrollY},${r.top},${r.left},${r.width},${r.height}`;
    const same = window.__animdexSettled === key;
    window.__animdexSettled = key;
    return same && r.top >= 0 && r.top < window.innerHeight;
  }, selector, { polling: 'raf', timeout: 10000 });
}

// An upload made the way a teammate would, with curl; the created entry's id.
function curlUpload(base, path) {
  const answer = JSON.parse(execFileSync('curl', ['-sf', '-F', `file=@${path}`, `${base}/api/resources`]));
  return answer.resources[0].id;
}

function startDaemon() {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['--listen', '127.0.0.1:0', '--db', join(dir, 'web.db'), '--www', join(srcdir, 'www'), '--quiet'],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (data) => {
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(String(data));
      if (m) resolve({ child, base: `http://127.0.0.1:${m[1]}` }); else reject(new Error(`no port in: ${data}`));
    });
    child.once('exit', (code) => reject(new Error(`animdexd exited with ${code}`)));
  });
}

const walk = {
  name: 'browser walk', duration: 2,
  targets: [{ schema: 'E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3', object: 0, name: 'hips' }],
  samplers: [{ value: { type: 'FLOAT3' }, interpolation: 'CUBIC_SPLINE', times: [0, 1, 2],
    values: [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 2, 1, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0] }],
  channels: [{ target: 0, property: 1, sampler: 0 }],
};

// KeyframerMessage_Z, little-endian: u32 count, then per key f32 time, u32 n, n messages of
// u32 class, u32 receiver, u32 c, f32 parameter, u32 id.
function messageKeyframer() {
  const keys = [[0.25, [[36, 0xBEEF, 0, 1.0, 7]]], [1.5, [[12, 0, 0, 0.5, 8]]]];
  const size = 4 + keys.reduce((n, [, m]) => n + 8 + 20 * m.length, 0);
  const b = Buffer.alloc(size);
  let o = b.writeUInt32LE(keys.length, 0);
  for (const [time, messages] of keys) {
    o = b.writeFloatLE(time, o);
    o = b.writeUInt32LE(messages.length, o);
    for (const [cls, receiver, c, parameter, id] of messages) {
      o = b.writeUInt32LE(cls, o);
      o = b.writeUInt32LE(receiver, o);
      o = b.writeUInt32LE(c, o);
      o = b.writeFloatLE(parameter, o);
      o = b.writeUInt32LE(id, o);
    }
  }
  return b;
}

// KeyframerFloat_Z, little-endian, keys at 0.5 s (value 2) and 1.5 s (value 4): u16 flags,
// u32 count, then per key f32 time, value, tangentIn, tangentOut.
function lateKeyframer() {
  const b = Buffer.alloc(6 + 2 * 16);
  let o = b.writeUInt16LE(1, 0);
  o = b.writeUInt32LE(2, o);
  for (const [time, value] of [[0.5, 2], [1.5, 4]]) {
    o = b.writeFloatLE(time, o);
    o = b.writeFloatLE(value, o);
    o = b.writeFloatLE(0, o);
    o = b.writeFloatLE(0, o);
  }
  return b;
}

async function main() {
  mkdirSync(shots, { recursive: true });
  const good = join(dir, 'browser-walk.json');
  const bad = join(dir, 'broken.json');
  writeFileSync(good, JSON.stringify(walk));
  writeFileSync(bad, JSON.stringify({ duration: -1 }));
  const { child, base } = await startDaemon();
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const consoleErrors = [];
    page.on('console', (msg) => { if (msg.type() === 'error') consoleErrors.push(msg.text()); });
    page.on('pageerror', (error) => consoleErrors.push(String(error)));
    await page.goto(base);
    await page.waitForSelector('body[data-ready="true"]');
    check('the page loads Chart.js from the daemon', await page.evaluate(() => typeof Chart === 'function'));
    const emptyText = await page.locator('#catalogue-empty').isVisible() ? await page.locator('#catalogue-empty').innerText() : '(hidden)';
    check('an empty catalogue says what to do', /^The catalogue is empty: drop animation files above/.test(emptyText), emptyText);

    // keyboard: the file picker is reachable with Tab
        let focused = '';
    for (let i = 0; i < 5 && focused !== 'file-input'; i++) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement && document.activeElement.id);
    }
    check('the file input is reachable with the keyboard', focused === 'file-input', `focused ${focused}`);

    // upload through the file input and wait for the row's result; the list the upload reads
    // again is held until the live stream's event for the entry has been read, so that both
    // reach the list, as they do when the event comes first
    let held = false;
    const holdList = async (route) => {
      held = true;
      await page.waitForFunction(() => Number(document.body.dataset.eventsRead) >= 1, null, { timeout: 15000 }).catch(() => {});
      await route.continue();
    };
    const theList = (url) => url.pathname === '/api/resources' && url.searchParams.has('limit') && !held;
    await page.route(theList, holdList);
    await page.setInputFiles('#file-input', good);
    const row = page.locator('#uploads li').first();
    await row.locator('a').first().waitFor({ timeout: 15000 });
    check('an upload row shows the created entry', (await row.getAttribute('data-result')) === 'created', await row.innerText());
    check('the row has a progress bar that reached 100', (await row.locator('progress').evaluate((p) => p.value)) === 100);
    // the upload reads the list again and the live stream announces the entry too: once the list
    // shows the stream's event (the catalogue's first), the entry is in it once
    const uploadedId = new URL(await row.locator('a').first().getAttribute('href'), base).searchParams.get('id');
    await page.waitForFunction(() => Number(document.body.dataset.eventsShown) >= 1, null, { timeout: 15000 });
    await page.unroute(theList, holdList);
    const listedTimes = await page.locator(`#catalogue tbody tr[data-id="${uploadedId}"]`).count();
    check('in the tab that uploads, a new entry is listed once', listedTimes === 1, `${listedTimes} rows`);
    await page.waitForFunction(() => /^1 entry, 1 track,/.test(document.querySelector('#health').textContent), null, { timeout: 10000 })
      .catch(() => {});
    const health = await page.locator('#health').innerText();
    check('the header counts one entry in the singular', health.startsWith('1 entry, 1 track,'), health);

    // find it in the table by filtering, then open it
    await page.fill('#q', 'browser walk');
    await page.press('#q', 'Enter');
    await page.waitForFunction(() => document.querySelectorAll('#catalogue tbody tr').length === 1);
    const cell = await page.locator('#catalogue tbody tr td').nth(2).innerText();
    check('filtering the catalogue finds the entry', cell === 'browser walk', cell);
    check('the URL reflects the filter', page.url().includes('q=browser+walk'), page.url());
    await page.screenshot({ path: join(shots, 'catalogue-1280x800.png') });
    const walkId = await page.locator('#catalogue tbody tr').first().getAttribute('data-id');
    await page.locator('#catalogue tbody tr').first().click();
    await entryShown(page, walkId);
    check('the URL reflects the open entry', /[?&]id=\d+/.test(page.url()), page.url());

    // the chart canvas has drawn pixels
    const drawn = await page.evaluate(() => {
      const canvas = document.querySelector('#chart');
      const ctx = canvas.getContext('2d');
      const data = ctx.getImageData(0, 0, canvas.width, canvas.height).data;
      let coloured = 0;
      for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && !(data[i] > 240 && data[i + 1] > 240 && data[i + 2] > 240)) coloured++;
      return coloured;
    });
    check('the chart canvas is not blank', drawn > 500, `${drawn} coloured pixels`);

    // the readout under the pointer equals the API's sample at the same time
    const box = await page.locator('#chart').boundingBox();
    await page.mouse.move(box.x + box.width * 0.43, box.y + box.height * 0.5);
    await page.waitForFunction(() => document.querySelector('#readout').dataset.t !== undefined, null, { timeout: 10000 });
    const readout = await page.evaluate(() => ({ t: document.querySelector('#readout').dataset.t, values: JSON.parse(document.querySelector('#readout').dataset.values) }));
    const id = new URL(page.url()).searchParams.get('id');
    const api = await (await fetch(`${base}/api/resources/${id}/tracks/0/sample?t=${readout.t}`)).json();
    check('the readout equals the API sample at its time', JSON.stringify(readout.values[0]) === JSON.stringify(api.values[0]) && Number(readout.t) > 0,
      `readout ${JSON.stringify(readout)} api ${JSON.stringify(api.values[0])}`);
    await page.screenshot({ path: join(shots, 'entry-1280x800.png'), fullPage: true });

    // a legend clicked hides its curve with its key markers, and leaves the time alone; the
    // curve stays hidden when the window changes
    const legend = await page.evaluate(() => {
      const c = Chart.getChart('chart'), hit = c.legend.legendHitBoxes[0];
      return { x: hit.left + hit.width / 2, y: hit.top + hit.height / 2, curve: c.data.datasets[0].curve };
    });
    const timeBefore = await page.evaluate(() => document.querySelector('#readout').dataset.t);
    await page.mouse.click(box.x + legend.x, box.y + legend.y);
    await page.waitForFunction((curve) => document.querySelector('#chart').dataset.hiddenCurves === curve, legend.curve,
      { timeout: 5000 }).catch(() => {});
    const visibility = () => page.evaluate(() => {
      const c = Chart.getChart('chart');
      return c.data.datasets.map((d, i) => ({ curve: d.curve, keys: d.label.endsWith(' keys'), shown: c.isDatasetVisible(i) }));
    });
    const hiddenRight = (list) => list.length > 2 && list.every((d) => d.shown === (d.curve !== legend.curve))
      && list.some((d) => d.keys && !d.shown);
    const toggled = await visibility();
    check('a legend clicked hides its curve and its key markers, and only them', hiddenRight(toggled)
      && (await page.evaluate(() => document.querySelector('#readout').dataset.t)) === timeBefore, JSON.stringify(toggled));

    // the entry downloads as glTF, and the filtered catalogue as one .glb
    const gltfHref = await page.locator('#gltf-link').getAttribute('href');
    const glb = await fetch(`${base}${gltfHref}`);
    const magic = Buffer.from(await glb.arrayBuffer()).subarray(0, 4).toString();
    const exportHref = await page.locator('#export-link').getAttribute('href');
    check('the entry downloads as a .glb, and the filtered list exports as one',
      glb.ok && magic === 'glTF' && /filename=".*\.glb"/.test(glb.headers.get('content-disposition') || '') &&
      exportHref === '/api/export?q=browser+walk', `${glb.status} ${magic} ${exportHref}`);
    // the samples as CSV download under the entry's and the track's names
    const [csvDownload] = await Promise.all([page.waitForEvent('download', { timeout: 10000 }), page.click('#csv-link')]);
    const csvLines = readFileSync(await csvDownload.path(), 'utf8').trim().split('\n');
    check('the CSV download is named after the entry and its track', csvDownload.suggestedFilename() === 'browser walk - hips translation.csv'
      && csvLines.length > 2, `${csvDownload.suggestedFilename()}, ${csvLines.length} lines`);

    // narrowing the window asks for denser samples of it
    await page.fill('#from', '0.5');
    await page.fill('#to', '0.75');
    await page.click('#window button[type=submit]');
    await page.waitForFunction(() => window.Chart && Object.values(Chart.instances)[0].scales.x.max === 0.75);
    check('the time window narrows the chart', page.url().includes('from=0.5') && page.url().includes('to=0.75'), page.url());
    await page.waitForFunction(() => document.querySelector('#chart').dataset.pending === '0');
    const afterWindow = await visibility();
    check('a curve hidden from its legend stays hidden in a new window', hiddenRight(afterWindow), JSON.stringify(afterWindow));

    // a second version of the clip (its key at 1 s moved by 1 in x): listed, and compared
    const walk2 = join(dir, 'browser-walk-2.json');
    const changed = JSON.parse(JSON.stringify(walk));
    changed.samplers[0].values[12] = 3;
    writeFileSync(walk2, JSON.stringify(changed));
    const firstId = new URL(page.url()).searchParams.get('id');
    await page.setInputFiles('#file-input', walk2);
    await page.locator('#uploads li').first().locator('a').first().waitFor({ timeout: 15000 });
    await page.goto(`${base}/?id=${firstId}`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForFunction(() => document.querySelectorAll('#versions tbody tr').length === 1, null, { timeout: 10000 });
    const version = await page.locator('#versions tbody tr td').nth(3).innerText();
    await page.click('#versions button[data-compare]');
    await page.waitForFunction(() => !document.querySelector('#tracks .compare-column').hidden
      && Chart.getChart('chart').data.datasets.some((d) => d.compared), null, { timeout: 10000 });
    const difference = await page.locator('#tracks tbody tr .compare-column').first().innerText();
    const dashed = await page.evaluate(() => Chart.getChart('chart').data.datasets.filter((d) => d.compared && d.borderDash).length);
    check('another version is listed, and comparing shows both curves and the largest difference',
      version === 'browser-walk-2.json' && difference === '1 at 1 s' && dashed === 3 && page.url().includes('compare='),
      `${version} / ${difference} / ${dashed} dashed / ${page.url()}`);
    await page.screenshot({ path: join(shots, 'compare-1280x800.png'), fullPage: true });
    await page.click('#compare-clear');

    // numbers as a person writes them: a clip of 1.6666666 s, keyed at 0.4166666666666667 s
    // with a value of 7.672157e-9 there, and a version of it turned 10 degrees more at its end
    const thirds = (turn) => ({
      name: 'browser thirds', duration: 1.6666666,
      targets: [{ schema: 'E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3', object: 0, name: 'hips' }],
      samplers: [
        { value: { type: 'FLOAT3' }, interpolation: 'LINEAR', times: [0, 0.4166666666666667, 1.6666666],
          values: [1, 2, 3, 7.672157e-9, 0.1234567, -2e-12, 4, 5, 6] },
        { value: { type: 'FLOAT4' }, interpolation: 'LINEAR', semantic: 'NORMALIZED_QUATERNION', times: [0, 1.6666666],
          values: [0, 0, 0, 1, 0, Math.sin(turn / 2), 0, Math.cos(turn / 2)] }],
      channels: [{ target: 0, property: 1, sampler: 0 }, { target: 0, property: 2, sampler: 1 }],
    });
    const thirdsFiles = [join(dir, 'thirds.json'), join(dir, 'thirds-turned.json')];
    writeFileSync(thirdsFiles[0], JSON.stringify(thirds(Math.PI / 6)));
    writeFileSync(thirdsFiles[1], JSON.stringify(thirds(Math.PI / 6 + Math.PI / 18)));
    const [thirdsId, turnedId] = thirdsFiles.map((f) => curlUpload(base, f));
    await page.goto(`${base}/?q=browser+thirds`);
    await page.waitForSelector('body[data-ready="true"]');
    await page.waitForFunction(() => document.querySelectorAll('#catalogue tbody tr').length === 2, null, { timeout: 10000 });
    const durationCell = await page.locator(`#catalogue tbody tr[data-id="${thirdsId}"] td`).nth(5)
      .evaluate((td) => ({ text: td.textContent, title: td.title }));
    check('the list writes a duration as a person does, the exact one on hover',
      durationCell.text === '1.667 s' && durationCell.title === '1.6666666 s', JSON.stringify(durationCell));
    await page.goto(`${base}/?id=${thirdsId}&compare=${turnedId}`);
    await page.waitForSelector('body[data-ready="true"]');
    await entryShown(page, String(thirdsId));
    await page.waitForFunction(() => !document.querySelector('#tracks .compare-column').hidden
      && document.querySelectorAll('#tracks tbody tr .compare-column').length === 2, null, { timeout: 10000 });
    const written = await page.evaluate(() => ({
      duration: [...document.querySelectorAll('#entry-summary dt')].find((dt) => dt.textContent === 'Duration').nextElementSibling.textContent,
      ranges: [...document.querySelectorAll('#tracks tbody tr[data-n]')].map((tr) => tr.cells[6].textContent),
      differences: [...document.querySelectorAll('#tracks tbody tr[data-n] .compare-column')].map((td) => td.textContent),
      exactDifference: document.querySelector('#tracks tbody tr[data-n="1"] .compare-column').title,
    }));
    check('the entry writes its duration, key ranges and a rotation\'s difference in degrees as a person does',
      written.duration === '1.667 s' && written.ranges.every((r) => r === '0 – 1.667 s')
        && written.differences[0] === '0 (identical keys)' && /^(9\.99\d*|10(\.0\d*)?)° at 1\.667 s$/.test(written.differences[1])
        && / rad at 1\.666666/.test(written.exactDifference),
      JSON.stringify(written));
    // the readout at the key: no exponent, the exact values on hover
    await page.evaluate(async () => {
      const chart = await import('/chart.js');
      await chart.readoutAt(0.4166666666666667);
    });
    await page.waitForFunction(() => document.querySelector('#readout').dataset.t !== undefined
      && Math.abs(Number(document.querySelector('#readout').dataset.t) - 0.4166666666666667) < 1e-6, null, { timeout: 10000 });
    const readoutText = await page.evaluate(() => ({ text: document.querySelector('#readout').textContent, title: document.querySelector('#readout').title }));
    check('the readout writes values as a person does (0, never 7.672157e-9), the exact ones on hover',
      /^t = 0\.4167 s\n/.test(readoutText.text) && readoutText.text.includes('[0, 0.1235, 0]') && !/\de-?\d/.test(readoutText.text)
        && readoutText.title.includes('7.672157e-9'), JSON.stringify(readoutText));
    // a zoom halves the window: its ends as a person writes them
    await page.click('#compare-clear');
    await page.click('#zoom-in');
    await page.waitForFunction(() => document.querySelector('#chart').dataset.pending === '0' && document.querySelector('#from').value !== '0');
    const ends = await page.evaluate(() => [document.querySelector('#from'), document.querySelector('#to')].map((i) => ({ value: i.value, title: i.title })));
    check('From and To after a zoom are written with at most 4 decimals, exact on hover',
      ends.every((e) => /^-?\d+(\.\d{1,4})?$/.test(e.value) && / s$/.test(e.title)) && ends[0].value === '0.4167' && ends[1].value === '1.25',
      JSON.stringify(ends));

                // an event track: a Zouna message keyframer, its messages listed under the chart
    const events = join(dir, 'footsteps.KeyframerMessage_Z');
    writeFileSync(events, messageKeyframer());
    await page.setInputFiles('#file-input', events);
    await page.locator('#uploads li').first().locator('a').first().waitFor({ timeout: 15000 });
    await page.fill('#q', 'footsteps');
    await page.press('#q', 'Enter');
    await page.waitForFunction(() => [...document.querySelectorAll('#catalogue tbody tr')]
      .map((tr) => tr.cells[2].textContent).join() === 'footsteps');
    await page.locator('#catalogue tbody tr').first().click();
    await page.waitForFunction(() => document.querySelectorAll('#events li').length === 2, null, { timeout: 10000 });
    const listed = await page.locator('#events li').allInnerTexts();
    check('an event track lists its messages', listed[0].startsWith('0.25 s: class 36 → 0x0000BEEF') && listed[1].startsWith('1.5 s: class 12'),
      listed.join(' | '));
    await page.screenshot({ path: join(shots, 'events-1280x800.png'), fullPage: true });

    // a Zouna keyframer whose first key is at 0.5 s: the chart starts at 0 and shows the last
    // key's value there, as the engine has it
    const late = join(dir, 'late.KeyframerFloat_Z');
    writeFileSync(late, lateKeyframer());
    await page.setInputFiles('#file-input', late);
    await page.locator('#uploads li').first().locator('a').first().waitFor({ timeout: 15000 });
    await page.fill('#q', 'late');
    await page.press('#q', 'Enter');
    await page.waitForFunction(() => [...document.querySelectorAll('#catalogue tbody tr')]
      .map((tr) => tr.cells[2].textContent).join() === 'late');
    await page.locator('#catalogue tbody tr').first().click();
    await page.waitForFunction(() => window.Chart && Object.values(Chart.instances).length &&
      Object.values(Chart.instances)[0].data.datasets.length >= 1 &&
      Object.values(Chart.instances)[0].data.datasets[0].data.length > 0 &&
      !('event' in Object.values(Chart.instances)[0].data.datasets[0].data[0]) &&
      /before its first key/.test(document.querySelector('#tracks-rules').textContent), null, { timeout: 10000 });
    const firstPoint = await page.evaluate(() => Object.values(Chart.instances)[0].data.datasets[0].data[0]);
    const rule = await page.locator('#tracks-rules').innerText();
    const ruleCell = await page.locator('#tracks tbody tr td').nth(4).innerText();
    check('a Zouna chart shows the last key\'s value before the first key, the rule said under the tracks',
      firstPoint.x === 0 && firstPoint.y === 4 && rule === "The track holds its last key's value before its first key, as the engine has it."
      && ruleCell === 'CUBIC_SPLINE', `${JSON.stringify(firstPoint)} ${rule} / ${ruleCell}`);

    // a .gltf with its .bin, chosen together, goes up in one request
    const fixtures = process.env.ANIMDEX_FIXTURES;
    const separate = fixtures && join(fixtures, 'gltf', 'InterpolationTest-separate');
    if (separate && existsSync(separate)) {
      await page.setInputFiles('#file-input', [join(separate, 'InterpolationTest.gltf'), join(separate, 'interpolation.bin')]);
      const gltfRow = page.locator('#uploads li').first();
      await gltfRow.locator('a').first().waitFor({ timeout: 15000 });
      const rowText = await gltfRow.innerText();
      check('a .gltf and its .bin go up together', rowText.includes('InterpolationTest.gltf + interpolation.bin') && rowText.includes('9 created'), rowText);
    } else {
      skip('a .gltf and its .bin go up together', 'the fixtures folder is absent');
    }

    check('no console errors', consoleErrors.length === 0, consoleErrors.join(' | '));

    // a broken file shows the API's error in plain words (Chromium logs the 422 itself)
    consoleErrors.length = 0;
    await page.setInputFiles('#file-input', bad);
    const badRow = page.locator('#uploads li').first();
    await badRow.locator('.error').waitFor({ timeout: 15000 });
    const message = await badRow.locator('.error').innerText();
        check('a broken upload shows the API message', message === 'duration: -1 is not allowed; it must be finite and >= 0', message);
    check('the broken upload logs nothing but its 422',
      consoleErrors.every((e) => /status of 422/.test(e)), consoleErrors.join(' | '));
    consoleErrors.length = 0;

    // a .gltf chosen without its .bin: said in words with a button to choose the .bin, which
    // sends the two together (no curl command to copy)
    const binBytes = Buffer.from(new Float32Array([0, 1, 0, 0, 0, 1, 2, 3]).buffer);
    const external = {
      asset: { version: '2.0' }, scene: 0, scenes: [{ nodes: [0] }], nodes: [{ name: 'mover' }],
      buffers: [{ uri: 'mover.bin', byteLength: 32 }],
      bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: 8 }, { buffer: 0, byteOffset: 8, byteLength: 24 }],
      accessors: [{ bufferView: 0, componentType: 5126, count: 2, type: 'SCALAR', min: [0], max: [1] },
        { bufferView: 1, componentType: 5126, count: 2, type: 'VEC3' }],
      animations: [{ name: 'move', channels: [{ sampler: 0, target: { node: 0, path: 'translation' } }],
        samplers: [{ input: 0, output: 1 }] }],
    };
    const gltfPath = join(dir, 'mover.gltf'), binPath = join(dir, 'mover.bin');
    writeFileSync(gltfPath, JSON.stringify(external));
    writeFileSync(binPath, binBytes);
    consoleErrors.length = 0;
    await page.setInputFiles('#file-input', gltfPath);
    const lonely = page.locator('#uploads li').first();
    await lonely.locator('input.pick-missing').waitFor({ state: 'attached', timeout: 15000 }).catch(() => {});
    const said = await lonely.innerText();
    check('a .gltf without its .bin says which file it needs, in words', /mover\.gltf needs mover\.bin/.test(said) && !/curl/.test(said), said);
    await lonely.locator('input.pick-missing').setInputFiles(binPath).catch(() => {});
    const together = page.locator('#uploads li').first();
    await together.locator('a').first().waitFor({ timeout: 15000 }).catch(() => {});
    check('choosing the .bin sends the two together', (await together.getAttribute('data-result')) === 'created'
      && /mover\.gltf \+ mover\.bin/.test(await together.innerText()), await together.innerText());
    check('the refused .gltf logs nothing but its 400', consoleErrors.every((e) => /status of 400/.test(e)), consoleErrors.join(' | '));
    consoleErrors.length = 0;

    // the live catalogue: a teammate's upload made with curl appears without reloading, at the
    // top, marked new; scrolled away, it waits behind a notice; an open entry deleted says so
    const watcher = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const watcherErrors = [];
    watcher.on('console', (msg) => { if (msg.type() === 'error') watcherErrors.push(msg.text()); });
    watcher.on('pageerror', (error) => watcherErrors.push(String(error)));
    watcher.on('response', (r) => { if (r.status() >= 400) watcherErrors.push(`${r.status()} ${r.url()}`); });
    await watcher.goto(base);
    await watcher.waitForSelector('body[data-ready="true"]');
    await watcher.waitForFunction(() => document.body.dataset.live === 'true', null, { timeout: 5000 });
    const teammate = (name, value) => {
      const path = join(dir, `${name}.json`);
      writeFileSync(path, JSON.stringify({ ...walk, name, samplers: [{ ...walk.samplers[0], values: walk.samplers[0].values.map((v, i) => (i === 3 ? value : v)) }] }));
      return curlUpload(base, path);
    };
    let liveStarted = Date.now();
    const liveFirst = teammate('teammate walk', 7);
    const appeared = await watcher.waitForSelector(`#catalogue tbody tr.new[data-id="${liveFirst}"]`, { timeout: 2000 }).then(() => Date.now() - liveStarted, () => -1);
    check('an upload made with curl appears in the open page within 2 s, marked new', appeared >= 0, 'not within 2 s');
    if (appeared >= 0) console.log(`note: it appeared ${appeared} ms after curl began`);
    check('it is the top row (the newest first)', (await watcher.locator('#catalogue tbody tr').first().getAttribute('data-id')) === String(liveFirst));
    check('it stops being new once it has been seen', await watcher.waitForSelector(`#catalogue tbody tr[data-id="${liveFirst}"]:not(.new)`, { timeout: 8000 }).then(() => true, () => false));
    // scrolled away from the top (an entry open below the catalogue): the rows stay put and a
    // notice counts the new ones
    await watcher.locator(`#catalogue tbody tr[data-id="${liveFirst}"]`).click();
    await entryShown(watcher, liveFirst);
    await watcher.evaluate(() => document.querySelector('#chart-part').scrollIntoView({ block: 'start' }));
    const away = await watcher.evaluate(() => document.querySelector('#catalogue').getBoundingClientRect().top < 0);
    check('(the catalogue is out of sight)', away);
    const rowsBefore = await watcher.locator('#catalogue tbody tr').count();
    const liveSecond = teammate('teammate run', 9);
    const noticed = await watcher.waitForSelector('#new-notice:not([hidden])', { timeout: 2000 }).then(() => true, () => false);
    const noticeText = noticed ? await watcher.locator('#new-notice').innerText() : '';
    check('scrolled away, a new upload waits behind an "N new" notice instead of moving the rows',
      noticed && noticeText.startsWith('1 new entry') && (await watcher.locator('#catalogue tbody tr').count()) === rowsBefore, noticeText);
    await watcher.screenshot({ path: join(shots, 'live-notice-1280x800.png') });
    await watcher.locator('#new-notice').click();
    check('the notice shows it, marked new', await watcher.waitForSelector(`#catalogue tbody tr.new[data-id="${liveSecond}"]`, { timeout: 2000 }).then(() => true, () => false));
    // an upload the filter leaves out does not join the list
    await watcher.fill('#q', 'teammate walk');
    await watcher.press('#q', 'Enter');
    await watcher.waitForFunction(() => document.querySelectorAll('#catalogue tbody tr').length === 1);
    await watcher.waitForFunction(() => document.body.dataset.live === 'true');
    const liveThird = teammate('teammate jump', 3);
    const liveFourth = teammate('teammate walk again', 4);
    await watcher.waitForSelector(`#catalogue tbody tr[data-id="${liveFourth}"]`, { timeout: 2000 }).catch(() => {});
    const liveShown = await watcher.locator('#catalogue tbody tr').evaluateAll((rows) => rows.map((r) => r.dataset.id));
    check('with a filter, only the uploads it matches join the list', liveShown.includes(String(liveFourth)) && !liveShown.includes(String(liveThird)), liveShown.join(','));
    // the entry opened above, still open, is deleted by someone else
    check('(the first upload is still the open entry)', new URL(watcher.url()).searchParams.get('id') === String(liveFirst), watcher.url());
    liveStarted = Date.now();
    execFileSync('curl', ['-sf', '-X', 'DELETE', `${base}/api/resources/${liveFirst}`]);
    const liveSaid = await watcher.waitForSelector('#entry-gone:not([hidden])', { timeout: 2000 }).then(() => true, () => false);
    const liveGone = liveSaid ? await watcher.locator('#entry-gone').innerText() : '';
    check('an open entry deleted by someone else says so', liveSaid && liveGone.includes('This entry was deleted'), liveGone);
    check('and its row leaves the list', await watcher.waitForSelector(`#catalogue tbody tr[data-id="${liveFirst}"]`, { state: 'detached', timeout: 2000 })
      .then(() => true, () => false));
    await watcher.screenshot({ path: join(shots, 'live-1280x800.png') });
    // an open entry decoded again by `animdexd redecode` beside the daemon says so
    await watcher.locator(`#catalogue tbody tr[data-id="${liveFourth}"]`).click();
    await entryShown(watcher, liveFourth);
    execFileSync('sqlite3', [join(dir, 'web.db'), `UPDATE resources SET decoder_version = 0 WHERE id = ${liveFourth}`]);
    execFileSync(bin, ['redecode', '--quiet', '--db', join(dir, 'web.db')]);
    const redecoded = await watcher.waitForSelector('#entry-redecoded:not([hidden])', { timeout: 2000 }).then(() => true, () => false);
    check('an open entry decoded again beside the daemon says so, with a way to reload it',
      redecoded && (await watcher.locator('#entry-redecoded').innerText()).includes('decoded again'));
    // a folder imported beside the daemon: its 300 entries join the list together
    await watcher.click('#clear-filters');
    await watcher.waitForFunction(() => !new URLSearchParams(location.search).get('q'));
    await watcher.evaluate(() => window.scrollTo(0, 0));
    const rowsNow = Number(await watcher.locator('#catalogue').getAttribute('data-rows'));
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    for (let i = 0; i < 300; i++) writeFileSync(join(folder, `clip${i}.json`), JSON.stringify({ ...walk, name: `folder clip ${i}` }));
    execFileSync(bin, ['import', '--quiet', '--db', join(dir, 'web.db'), folder]);
    // (the list draws the rows in sight: the 300 are among its rows, those in sight marked new)
    const joined = await watcher.waitForFunction((n) => Number(document.querySelector('#catalogue').dataset.rows) >= n
      && document.querySelector('#catalogue tbody tr[data-id]')?.classList.contains('new'), rowsNow + 300,
      { timeout: 3000 }).then(() => true, () => false);
    check('an import of 300 files beside the daemon joins the list within 3 s', joined,
      `${Number(await watcher.locator('#catalogue').getAttribute('data-rows')) - rowsNow} rows more`);
    check('no console errors on the live page', watcherErrors.length === 0, watcherErrors.join(' | '));
    await watcher.close();

    // sorting sorts the whole catalogue on the server, not the 100 rows of the first page: by
    // name, A first on the first click (the oldest of 105, beyond the first page by upload), the
    // next page read as the list's end comes near, in the same order; the count says how many
    for (let i = 0; i < 105; i++) {
      const doc = JSON.stringify({ ...walk, name: `sorted ${String(i).padStart(2, '0')}` });
      await fetch(`${base}/api/resources?filename=sorted${i}.json`, { method: 'POST', body: doc });
    }
    const sorter = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await sorter.goto(`${base}/?q=sorted`);
    await sorter.waitForSelector('body[data-ready="true"]');
    await sorter.click('#catalogue th button[data-sort="name"]');
    await sorter.waitForFunction(() => document.querySelector('#catalogue tbody tr td:nth-child(3)')?.textContent === 'sorted 00',
      null, { timeout: 10000 }).catch(() => {});
    const firstByName = await sorter.locator('#catalogue tbody tr td:nth-child(3)').first().innerText();
    const countText = await sorter.locator('#count').innerText();
    // (the list reads its next page itself when its end is near: in a window of 800 px, at once)
    await sorter.waitForSelector('#catalogue[data-complete="true"][data-loading="false"]', { timeout: 10000 }).catch(() => {});
    check('sorting by name sorts the whole catalogue, A first', firstByName === 'sorted 00'
      && countText.startsWith('105 entries'), `${firstByName}; ${countText}`);
    const names = await sorter.locator('#catalogue tbody tr td:nth-child(3)').allInnerTexts();
    const byName = Array.from({ length: 105 }, (_, i) => `sorted ${String(i).padStart(2, '0')}`).sort(); // "sorted 10", "sorted 100"...
    check('the next page keeps the order', names.length === 105 && names.every((n, i) => n === byName[i])
      && (await sorter.locator('#count').innerText()) === '105 entries', names.slice(95).join(', '));
    await sorter.click('#catalogue th button[data-sort="name"]');
    await sorter.waitForFunction(() => document.querySelector('#catalogue tbody tr td:nth-child(3)')?.textContent === 'sorted 99',
      null, { timeout: 10000 }).catch(() => {});
    check('a second click sorts the other way', (await sorter.locator('#catalogue tbody tr td:nth-child(3)').first().innerText()) === 'sorted 99'
      && new URL(sorter.url()).searchParams.get('dir') === 'descending', sorter.url());
    const kindCell = sorter.locator('#catalogue tbody tr td:nth-child(1)').first();
    check('a Radient upload shows its kind, its class on hover', (await kindCell.innerText()) === 'Radient clip'
      && (await kindCell.getAttribute('title')) === 'RadientAnimationClip', await kindCell.innerText());
    await sorter.goto(`${base}/?q=${encodeURIComponent('no entry has this')}`);
    await sorter.waitForSelector('body[data-ready="true"]');
    const noMatch = await sorter.locator('#catalogue-empty').isVisible() ? await sorter.locator('#catalogue-empty').innerText() : '(hidden)';
    check('filters that match nothing say so, and how to see everything', /^No entry matches these filters/.test(noMatch), noMatch);
    await sorter.close();

    // names from the page: pasted, stored, and shown at once beside the hashes they name
    const namer = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await namer.goto(`${base}/?q=sorted+07`);
    await namer.waitForSelector('body[data-ready="true"]');
    const unnamed = await namer.locator('#catalogue tbody tr td.handle small').count();
    const namedId = await namer.locator('#catalogue tbody tr').first().getAttribute('data-id');
    await namer.locator('#catalogue tbody tr').first().click();
    await entryShown(namer, namedId);
    await namer.locator('#names-box summary').click();
    await namer.fill('#names-text', '# a comment line\nsorted 07\n');
    await namer.click('#names-form button[type="submit"]');
    await namer.waitForFunction(() => document.querySelector('#names-status').dataset.done === '1', null, { timeout: 10000 }).catch(() => {});
    const named = await namer.locator('#catalogue tbody tr td.handle small').allInnerTexts();
    check('a pasted name names its hash in the list at once', unnamed === 0 && named.length === 1 && named[0] === 'sorted 07'
      && /^1 name added/.test(await namer.locator('#names-status').innerText()),
      `${unnamed} named before; ${named.join(', ')}; ${await namer.locator('#names-status').innerText()}`);
    const summary = await namer.locator('#entry-summary').innerText();
    check('and in the open entry', /0x[0-9A-F]{8} \(sorted 07\)/.test(summary), summary.split('\n').slice(0, 6).join(' | '));
    // a name list chosen with the uploads (a .txt) is stored as names, not refused as a resource
    await namer.goto(`${base}/?q=sorted+0`);
    await namer.waitForSelector('body[data-ready="true"]');
    const namedRows = () => namer.evaluate(() => [...document.querySelectorAll('#catalogue tbody tr td.handle small')].map((e) => e.textContent).sort());
    await namer.setInputFiles('#file-input', { name: 'fuel names.txt', mimeType: 'text/plain', buffer: Buffer.from('sorted 08\r\n') });
    await namer.waitForFunction(() => document.querySelector('#uploads li[data-result]'), null, { timeout: 10000 }).catch(() => {});
    await namer.waitForFunction(() => [...document.querySelectorAll('#catalogue tbody tr td.handle small')].some((e) => e.textContent === 'sorted 08'),
      null, { timeout: 10000 }).catch(() => {});
    const listRow = await namer.locator('#uploads li').first().innerText();
    check('a .txt name list among the uploads names its hashes at once', (await namedRows()).includes('sorted 08')
      && /fuel names\.txt \(a name list\)/.test(listRow) && /1 name added/.test(listRow), `${await namedRows()}; ${listRow}`);
    // and one dropped on the names box
    await namer.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(['sorted 09\n'], 'more names.txt', { type: 'text/plain' }));
      document.querySelector('#names-box').dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    });
    await namer.waitForFunction(() => document.querySelector('#names-status').dataset.done === '1', null, { timeout: 10000 }).catch(() => {});
    check('a name list dropped on the names box names its hashes at once', (await namedRows()).includes('sorted 09'),
      `${await namedRows()}; ${await namer.locator('#names-status').innerText()}`);
    // a .txt that does not read as a name list (a pack's read-me, a binary file named .txt) is
    // refused with why, and none of its lines is stored as a name
    const refused = async (file) => {
      const rows = await namer.locator('#uploads li').count();
      await namer.setInputFiles('#file-input', file);
      await namer.waitForFunction((n) => document.querySelectorAll('#uploads li').length > n
        && document.querySelector('#uploads li').dataset.result, rows, { timeout: 10000 }).catch(() => {});
      return namer.evaluate(() => ({ result: document.querySelector('#uploads li').dataset.result, text: document.querySelector('#uploads li').innerText }));
    };
    const readMe = await refused({ name: 'readme.txt', mimeType: 'text/plain',
      buffer: Buffer.from('sorted 10\r\nThese animations were pulled out of the game by our team, enjoy\r\n') });
    const binary = await refused({ name: 'anims.txt', mimeType: 'text/plain', buffer: Buffer.from('sorted 11\nPK\x03\x04\x14\x00\x00\x00', 'latin1') });
    const stored = await namedRows();
    check('a .txt read-me among the uploads is refused as a sentence, not stored as names', readMe.result === 'error'
      && /readme\.txt is not a name list: line 2 reads as a sentence/.test(readMe.text) && !stored.includes('sorted 10'), `${readMe.result}: ${readMe.text}; ${stored}`);
    check('a binary file named .txt is refused by its zero bytes, not stored as names', binary.result === 'error'
      && /anims\.txt is not a name list: it holds a zero byte \(at byte 16\)/.test(binary.text) && !stored.includes('sorted 11'), `${binary.result}: ${binary.text}; ${stored}`);
    await namer.close();

    // the way back into the game: an Animation_Z (one bone, two rotation keys) goes out as a
    // .glb and comes back; its entry offers "Download for the game" laid out like the file it
    // was exported from, says what was kept, and the link gives the original bytes
    const hero = Buffer.from('kgAAAAAAAACSAAAAAAAAAIl9EEYUi/EGAACAPwAAAAAAAAAAAgAAAAAAAAAAAAAAAADQBwAAgD8A'
      + 'AAAAhgWGBQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'
      + 'AAAAAAAAAAAAAAAAAQAAAJNHz10AAAAAAAAAAAAAAgAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=', 'base64');
    const post = async (name, body) => (await (await fetch(`${base}/api/resources?filename=${name}`, { method: 'POST', body })).json()).resources[0].id;
    const heroId = await post('hero.Animation_Z', hero);
    const heroGlb = Buffer.from(await (await fetch(`${base}/api/resources/${heroId}/export`)).arrayBuffer());
    const glbId = await post('hero.glb', heroGlb);
    const gamer = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await gamer.goto(`${base}/?id=${glbId}`);
    await gamer.waitForFunction(() => document.querySelector('#native-report')?.dataset.done, null, { timeout: 15000 }).catch(() => {});
    const offered = await gamer.locator('#native-template option').first().innerText().catch(() => '(none)');
    const report = await gamer.locator('#native-report').innerText().catch(() => '(none)');
    check('a .glb brought back offers "Download for the game", laid out like the file it came from',
      offered === `entry ${heroId}, the Animation_Z this was exported from` && /^hero\.Animation_Z, 170 B: 1 track kept byte for byte, 0 tracks written/.test(report),
      `${offered}; ${report}`);
    const [download] = await Promise.all([gamer.waitForEvent('download'), gamer.click('#native-link')]);
    const saved = readFileSync(await download.path());
    check('and the download is the game file, byte for byte', download.suggestedFilename() === 'hero.Animation_Z' && saved.equals(hero),
      `${download.suggestedFilename()}, ${saved.length} bytes`);
    await gamer.close();

    // dark mode where the system asks for it: dark page, dark buttons, light text
    const luminance = (rgb) => {
      const [r, g, b] = rgb.match(/\d+/g).map(Number);
      return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255;
    };
    for (const scheme of ['dark', 'light']) {
      const themed = await browser.newPage({ viewport: { width: 1280, height: 800 }, colorScheme: scheme });
      await themed.goto(base);
      await themed.waitForSelector('body[data-ready="true"]');
      const colours = await themed.evaluate(() => ({
        page: getComputedStyle(document.body).backgroundColor,
        text: getComputedStyle(document.body).color,
        button: getComputedStyle(document.querySelector('#more')).backgroundColor,
      }));
      const dark = luminance(colours.page) < 0.2 && luminance(colours.button) < 0.2 && luminance(colours.text) > 0.7;
      const light = luminance(colours.page) > 0.9 && luminance(colours.text) < 0.3;
      check(`the page is ${scheme} when the system asks for ${scheme}`, scheme === 'dark' ? dark : light, JSON.stringify(colours));
      await themed.close();
    }

    // the Token box only where the catalogue needs one: hidden on an open catalogue, offered once
    // a token exists (writes need one then)
    const tokenBox = async () => {
      const p = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      await p.goto(base);
      await p.waitForSelector('body[data-ready="true"]');
      await p.waitForFunction(() => /animdex/.test(document.querySelector('#health').textContent), null, { timeout: 10000 });
      const hidden = await p.locator('#token-box').isHidden();
      await p.close();
      return hidden;
    };
    const openHidden = await tokenBox();
    execFileSync(bin, ['token', 'add', 'web-test', '--db', join(dir, 'web.db')], { stdio: ['ignore', 'pipe', 'ignore'] });
    const needed = (await (await fetch(`${base}/api/health`)).json()).token_needed;
    const tokenedHidden = await tokenBox();
    check('the Token box is offered only where the catalogue needs a token', openHidden && !tokenedHidden
      && needed.writes === true && needed.reads === false, `open: hidden ${openHidden}; with a token: hidden ${tokenedHidden}, ${JSON.stringify(needed)}`);

    // a narrow window: no sideways scrolling of the page itself
    await page.setViewportSize({ width: 390, height: 800 });
    await settled(page, '#entry');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check('a narrow window does not scroll sideways', overflow <= 1, `${overflow}px wider`);
        await page.screenshot({ path: join(shots, 'entry-390x800.png'), fullPage: true });
    check('no console errors after that', consoleErrors.length === 0, consoleErrors.join(' | '));
  } finally {
    await browser.close();
    child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(() => {
  console.log(`screenshots: ${shots}`);
  process.exit(failures() ? 1 : 0);
}, (error) => {
  console.log(`FAIL: the browser test could not run to its end (${error.message})`);
  process.exit(1);
});
