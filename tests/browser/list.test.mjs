// list.test.mjs: the catalogue's windowed list in real Chromium (Debian's), against a real
// animdexd on loopback whose SQLite catalogue holds LIST_ENTRIES entries (100,000 by default,
// imported from tests/scale/generate.py's files): scrolled to its end, every row is seen once,
// in the catalogue's order, while the page holds no more than a few hundred rows; the total
// shown; another sort; a search as it is typed, whose older answers are dropped.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { planChecks, runToTheEnd } from './checks.mjs';

const bin = process.env.ANIMDEXD;
const srcdir = process.env.ANIMDEX_SRCDIR || '.';
const entries = Number(process.env.LIST_ENTRIES || 100000);
const dir = mkdtempSync(join(tmpdir(), 'animdex-list-'));
const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];
const planned = planChecks(13);
const check = (name, ok, detail = '') => planned.check(`list ${name}`, ok, detail);
const MAX_ROWS = 400; // "a few hundred rows" in the page at most

function startDaemon(db) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['--listen', '127.0.0.1:0', '--db', db, '--www', join(srcdir, 'www'), '--quiet'],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (data) => {
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(String(data));
      if (m) resolve({ child, base: `http://127.0.0.1:${m[1]}` }); else reject(new Error(`no port in: ${data}`));
    });
    child.once('exit', (code) => reject(new Error(`animdexd exited with ${code}`)));
  });
}

// The whole list in this order, read from animdex by cursor: the reference the page must show.
async function wholeList(base, query) {
  const ids = [];
  let cursor = null;
  do {
    const page = await (await fetch(`${base}/api/resources?${query}&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`)).json();
    ids.push(...page.resources.map((r) => r.id));
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

const listStill = (page) => page.waitForSelector('#catalogue[data-loading="false"]', { timeout: 30000 });

// Scrolls the list's window to its end, by the rows drawn below it, waiting at each step for
// the rows drawn for that scroll (and for the next page, at the end of those read): the id seen
// at each row, and the most rows the page held at once.
async function scrollToTheEnd(page) {
  return page.evaluate(async () => {
    const box = document.querySelector('#catalogue-window');
    const table = document.querySelector('#catalogue');
    // the page tells each change of the list's state with a 'listchange' event
    const until = (ok) => new Promise((resolve) => {
      const look = () => { if (ok()) { table.removeEventListener('listchange', look); resolve(); } };
      table.addEventListener('listchange', look);
      look();
    });
    const seen = [];
    let most = 0, steps = 0;
    for (;;) {
      await until(() => table.dataset.drawnAt === String(box.scrollTop) && table.dataset.loading === 'false');
      const rows = table.querySelectorAll('tbody tr[data-id]');
      most = Math.max(most, rows.length);
      for (const r of rows) {
        const i = Number(r.dataset.row);
        if (seen[i] !== undefined && seen[i] !== Number(r.dataset.id)) return { seen, most, steps, error: `row ${i} was ${seen[i]}, then ${r.dataset.id}` };
        seen[i] = Number(r.dataset.id);
      }
      const end = box.scrollHeight - box.clientHeight;
      if (box.scrollTop >= end - 1 && table.dataset.complete === 'true') break;
      // the last row drawn brought into sight, near the window's bottom: the rows drawn next
      // begin before it, so none is skipped
      const last = rows[rows.length - 1].getBoundingClientRect();
      const below = last.bottom - box.getBoundingClientRect().bottom;
      box.scrollTop = Math.min(end, box.scrollTop + Math.max(1, Math.floor(below + last.height)));
      steps++;
      // at the end of the rows read: the next page's rows make the list longer
      if (box.scrollTop < end) continue;
      const rowsBefore = Number(table.dataset.rows);
      await until(() => table.dataset.complete === 'true' || Number(table.dataset.rows) > rowsBefore);
    }
    return { seen, most, steps };
  });
}

async function main() {
  // the catalogue: generated files imported, as a team with a whole game's would
  const files = join(dir, 'files');
  mkdirSync(files);
  execFileSync('python3', [join(srcdir, 'tests', 'scale', 'generate.py'), files, String(Math.ceil(entries / 1000)), String(Math.min(entries, 1000))]);
  execFileSync(bin, ['import', '--db', join(dir, 'list.db'), '--quiet', files], { stdio: ['ignore', 'ignore', 'inherit'] });
  const { child, base } = await startDaemon(join(dir, 'list.db'));
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    const expected = await wholeList(base, 'sort=id&order=desc');
    await page.goto(base);
    await page.waitForSelector('body[data-ready="true"]');
    await listStill(page);
    const countText = await page.locator('#count').innerText();
    check('shows the total at once', countText.startsWith(`${expected.length.toLocaleString('en')} entries`), countText);
    const first = await page.locator('#catalogue tbody tr[data-id]').count();
    check('draws only the rows in sight at first', first > 0 && first <= MAX_ROWS, `${first} rows`);

    // a row a keyboard user is on keeps the focus when the rows are drawn again around it
    const kept = await page.evaluate(async () => {
      const box = document.querySelector('#catalogue-window'), table = document.querySelector('#catalogue');
      const rows = table.querySelectorAll('tbody tr[data-id]');
      const row = rows[rows.length - 10];
      row.focus({ preventScroll: true });
      const before = table.dataset.first;
      box.scrollTop += row.getBoundingClientRect().top - box.getBoundingClientRect().top - 100;
      await new Promise((resolve) => {
        const look = () => { if (table.dataset.drawnAt === String(box.scrollTop)) { table.removeEventListener('listchange', look); resolve(); } };
        table.addEventListener('listchange', look);
        look();
      });
      const on = document.activeElement;
      return { redrawn: table.dataset.first !== before, same: on.dataset.id === row.dataset.id && on !== row && on.isConnected };
    });
    check('a focused row keeps the focus when the rows are drawn again', kept.redrawn && kept.same, JSON.stringify(kept));
    await page.evaluate(() => { document.querySelector('#catalogue-window').scrollTop = 0; });

    const { seen, most, steps, error } = await scrollToTheEnd(page);
    const inOrder = !error && seen.length === expected.length && expected.every((id, i) => seen[i] === id);
    const wrong = error || `${seen.length} rows seen of ${expected.length}; first difference at ${expected.findIndex((id, i) => seen[i] !== id)}`;
    check(`scrolled to its end (${steps} steps), shows every row once, in order`, inOrder, wrong);
    check('never holds more than a few hundred rows in the page', most <= MAX_ROWS, `${most} rows at once`);
    const lastRow = await page.locator('#catalogue tbody tr[data-id]').last().getAttribute('data-id');
    check('ends on the oldest entry', lastRow === String(expected[expected.length - 1]), lastRow);

    // another order: by name, ascending, from the top again
    await page.click('#catalogue th button[data-sort="name"]');
    await page.waitForFunction(() => document.querySelector('#catalogue th button[data-sort="name"]').getAttribute('aria-sort') === 'ascending'
      && document.querySelector('#catalogue').dataset.loading === 'false');
    const byName = (await (await fetch(`${base}/api/resources?sort=name&order=asc&limit=40`)).json()).resources.map((r) => String(r.id));
    const shownByName = await page.locator('#catalogue tbody tr[data-id]').evaluateAll((rows) => rows.slice(0, 40).map((r) => r.dataset.id));
    check('sorts the whole catalogue by another column, from its top', shownByName.join() === byName.join()
      && (await page.evaluate(() => document.querySelector('#catalogue-window').scrollTop)) === 0, `${shownByName.slice(0, 5)} vs ${byName.slice(0, 5)}`);

    // a search as it is typed: shown once the typing pauses, without pressing Enter
    await page.locator('#q').pressSequentially('jump_fast');
    await page.waitForFunction(() => new URL(location.href).searchParams.get('q') === 'jump_fast'
      && document.querySelector('#catalogue').dataset.loading === 'false', null, { timeout: 10000 });
    const wanted = (await (await fetch(`${base}/api/resources?q=jump_fast&sort=name&order=asc&limit=100`)).json()).resources.map((r) => String(r.id));
    const found = await page.locator('#catalogue tbody tr[data-id]').evaluateAll((rows) => rows.map((r) => r.dataset.id));
    const shown = Math.min(found.length, wanted.length);
    check('searches as the user types', shown > 0 && found.slice(0, shown).join() === wanted.slice(0, shown).join(), `${found.length} shown, ${wanted.length} wanted`);

    // the answer to an older search, come late, is dropped: "idle" is held until "walk" is shown
    let release;
    const held = new Promise((resolve) => { release = resolve; });
    await page.route((url) => url.pathname === '/api/resources' && url.searchParams.get('q') === 'idle', async (route) => {
      await held;
      await route.continue();
    });
    await page.fill('#q', 'idle');
    await page.evaluate(() => document.querySelector('#filters').requestSubmit());
    await page.fill('#q', 'walk');
    await page.evaluate(() => document.querySelector('#filters').requestSubmit());
    await listStill(page);
    // the held answer arrives; the list is still the newest question's once it has
    const late = page.waitForResponse((r) => new URL(r.url()).searchParams.get('q') === 'idle');
    release();
    await late;
    await page.waitForSelector('#catalogue[data-dropped="1"]', { timeout: 10000 });
    const names = await page.locator('#catalogue tbody tr[data-id] td:nth-child(3)').allInnerTexts();
    check('shows the answer to the newest search only', names.length > 0 && names.every((n) => n.toLowerCase().includes('walk')),
      names.filter((n) => !n.toLowerCase().includes('walk')).slice(0, 3).join(', '));
    check('the page made no error', errors.length === 0, errors.slice(0, 3).join(' | '));
    await page.close();

    // a phone's width: the list scrolls in its own box, the page not sideways
    const phone = await browser.newPage({ viewport: { width: 390, height: 800 } });
    await phone.goto(base);
    await phone.waitForSelector('body[data-ready="true"]');
    await listStill(phone);
    const wide = await phone.evaluate(() => document.documentElement.scrollWidth);
    check('on a 390 px screen the page itself does not scroll sideways', wide <= 390, `${wide} px wide`);
    await phone.close();

    // a teammate's upload and deletion, come live: the total moves at once, though the page has
    // read only its first rows
    const watcher = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await watcher.goto(base);
    await watcher.waitForSelector('body[data-ready="true"][data-live="true"]');
    await listStill(watcher);
    const before = Number(await watcher.locator('#count').getAttribute('data-total'));
    const form = new FormData();
    form.append('file', new Blob([JSON.stringify({ name: 'teammate take', duration: 1, targets: [{ schema: 'E4ADD320-EECA-439F-A6C3-1D8A25AEFBC3', object: 0, name: 'hips' }],
      samplers: [{ value: { type: 'FLOAT3' }, interpolation: 'LINEAR', times: [0, 1], values: [0, 0, 0, 1, 0, 0] }],
      channels: [{ target: 0, property: 1, sampler: 0 }] })]), 'teammate.json');
    const made = (await (await fetch(`${base}/api/resources`, { method: 'POST', body: form })).json()).resources[0].id;
    const totalIs = (n) => watcher.waitForFunction((t) => Number(document.querySelector('#count').dataset.total) === t
      && document.querySelector('#count').textContent.startsWith(`${t.toLocaleString('en')} entries`), n, { timeout: 10000 }).then(() => true, () => false);
    const grew = await totalIs(before + 1);
    check('a teammate\'s upload, come live, adds one to the total at once', before === expected.length && grew,
      `${before} -> ${await watcher.locator('#count').innerText()}`);
    await fetch(`${base}/api/resources/${made}`, { method: 'DELETE' });
    const shrank = await totalIs(before);
    check('and its deletion takes it off again', shrank, await watcher.locator('#count').innerText());
    await watcher.close();
  } finally {
    await browser.close();
    child.kill('SIGTERM');
  }
}

await runToTheEnd('list', main, planned, () => rmSync(dir, { recursive: true, force: true }));
