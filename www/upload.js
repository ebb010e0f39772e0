// upload.js: the upload box: files dropped or chosen, one request a file (a .gltf with the
// .bin and image files chosen with it), a row each with its progress and its answer; a .txt
// among them is a name list, stored as names (names.js).

import { token } from '/api.js';
import { loadHealth, loadCatalogue } from '/catalogue.js';
import { $, text, make } from '/dom.js';
import { openEntry } from '/entry.js';
import { isNameList, sendNames } from '/names.js';
import { kindOf } from '/words.js';

// Upload: one row per request. A .gltf goes together with the .bin and image files chosen
// with it; every other file is its own request.

export function groupFiles(files) {
  const list = Array.from(files);
  const isGltf = (f) => /\.gltf$/i.test(f.name);
  const isCompanion = (f) => /\.(bin|png|jpe?g|ktx2|webp)$/i.test(f.name);
  if (!list.some(isGltf)) return list.map((f) => [f]);
  const together = list.filter((f) => isGltf(f) || isCompanion(f));
  return [together, ...list.filter((f) => !together.includes(f)).map((f) => [f])];
}

// Files dropped or chosen: a name list's names stored, every other file uploaded.
export function upload(files) {
  const list = Array.from(files);
  for (const file of list.filter(isNameList)) sendNames(file);
  for (const group of groupFiles(list.filter((f) => !isNameList(f)))) send(group);
}

// The file a .gltf of the group names at a JSON pointer the API's error gave ("/buffers/0",
// "/images/1"), when it is a file of its own; else null.
export async function missingFile(group, path) {
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
export function offerMissing(status, group, missing) {
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

export function send(group) {
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

export function setUpUpload() {
  const drop = $('#drop');
  $('#file-input').addEventListener('change', (event) => { upload(event.target.files); event.target.value = ''; });
  for (const name of ['dragenter', 'dragover']) drop.addEventListener(name, (event) => { event.preventDefault(); drop.classList.add('over'); });
  for (const name of ['dragleave', 'drop']) drop.addEventListener(name, () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => { event.preventDefault(); upload(event.dataTransfer.files); });
  // a drop anywhere else must not navigate away
  window.addEventListener('dragover', (event) => event.preventDefault());
  window.addEventListener('drop', (event) => event.preventDefault());
}
