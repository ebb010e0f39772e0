// daemon.mjs: what the page's tests share to set a catalogue up: a real animdexd on loopback
// (a port of its own, its SQLite catalogue at `db`, the page from the source tree's www/), an
// upload of a file as the page's users make one, and Debian's Chromium's arguments.

import { spawn } from 'node:child_process';
import { join } from 'node:path';

export const chromiumArgs = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--no-first-run'];

// animdexd (process.env.ANIMDEXD) serving `db`: its process and base URL once it listens.
export function startDaemon(db) {
  const srcdir = process.env.ANIMDEX_SRCDIR || '.';
  return new Promise((resolve, reject) => {
    const child = spawn(process.env.ANIMDEXD, ['--listen', '127.0.0.1:0', '--db', db, '--www', join(srcdir, 'www'), '--quiet'],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (data) => {
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(String(data));
      if (m) resolve({ child, base: `http://127.0.0.1:${m[1]}` }); else reject(new Error(`no port in: ${data}`));
    });
    child.once('exit', (code) => reject(new Error(`animdexd exited with ${code}`)));
  });
}

// One file uploaded as a form's file part: the id of the first entry it gave.
export async function upload(base, name, bytes) {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const answer = await (await fetch(`${base}/api/resources`, { method: 'POST', body: form })).json();
  if (!answer.resources) throw new Error(`${name}: ${JSON.stringify(answer)}`);
  return answer.resources[0].id;
}
