// names.js: names from the page: what POST /api/names takes (one a line, as a BigFile's name
// list has them), pasted, chosen, or dropped as a .txt file on the page (taken when it reads as
// a name list, refused with why when not); once stored, the list and the open entry are read
// again, so every hash they name shows its name at once.

import { api } from '/api.js';
import { loadCatalogue } from '/catalogue.js';
import { $, text, make } from '/dom.js';
import { openEntry } from '/entry.js';
import { state, readUrl } from '/state.js';
import { count } from '/words.js';

// A .txt among the uploads is offered as a name list (animdex reads no animation from one); it
// is taken as one only when it reads as one (nameListText).
export const isNameList = (file) => /\.txt$/i.test(file.name);

// The most words a name has: a bone's name has a few ("Bip01 R UpperArm"); a line of more is a
// sentence (a pack's read-me dropped with its files), not a name.
const NAME_MOST_WORDS = 5;
const NAME_MOST_BYTES = 1024;

// The names of a .txt's bytes when it reads as a name list: UTF-8 text, one name a line ('#'
// starts a comment), no control characters, no line longer than a name nor worded as a
// sentence, at least one name. Else throws an Error saying which line breaks which rule.
export function nameListText(name, buffer) {
  const rule = 'a name list is UTF-8 text, one name a line';
  const bytes = new Uint8Array(buffer);
  const zero = bytes.indexOf(0);
  if (zero >= 0) throw new Error(`${name} is not a name list: it holds a zero byte (at byte ${zero + 1}), as binary files do; ${rule}`);
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (e) {
    throw new Error(`${name} is not a name list: it is not UTF-8 text; ${rule}`);
  }
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const encoder = new TextEncoder();
  let names = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].replace(/\r$/, '').trim();
    if (!line || line.startsWith('#')) continue;
    const where = `${name} is not a name list: line ${i + 1}`;
    const control = /[\u0000-\u0008\u000a-\u001f\u007f]/.exec(line);
    if (control) throw new Error(`${where} holds the control character 0x${control[0].charCodeAt(0).toString(16).padStart(2, '0').toUpperCase()}; ${rule}`);
    if (encoder.encode(line).length > NAME_MOST_BYTES) throw new Error(`${where} is longer than a name (${NAME_MOST_BYTES.toLocaleString('en')} bytes at most); ${rule}`);
    const words = line.split(/\s+/).length;
    if (words > NAME_MOST_WORDS) {
      const shown = line.length > 40 ? `${line.slice(0, 40)}…` : line;
      throw new Error(`${where} reads as a sentence, not a name ("${shown}": ${words} words, a name has at most ${NAME_MOST_WORDS}); ${rule}`);
    }
    names++;
  }
  if (!names) throw new Error(`${name} is not a name list: it holds no names; ${rule}`);
  return text;
}

// The names of `body` stored; the list and the open entry read again. The answer's words, or
// throws the API's error.
async function addNames(body) {
  const answer = await api('/api/names', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body });
  await loadCatalogue();
  if (state.entry) {
    const view = readUrl();
    await openEntry(state.entry.id, state.selected, state.window,
      { skeleton: view.skeleton, t: view.t, speed: view.speed, cam: view.cam, grid: view.grid, compare: view.compare,
        retarget: view.retarget, map: view.map });
  }
  return `${count(answer.added, 'name', 'names')} added${answer.known ? `, ${answer.known} known already` : ''}`;
}

// A name list dropped or chosen with the uploads: stored at once, with a row of the uploads'
// list saying what it did.
export async function sendNames(file) {
  const status = make('span', { text: 'adding names…' });
  const label = make('span', { text: `${file.name} (a name list)` });
  const row = make('li', { class: 'names' }, [label, make('span'), status]);
  $('#uploads').prepend(row);
  let names;
  try {
    names = nameListText(file.name, await file.arrayBuffer());
  } catch (e) {
    text(label, file.name);
    status.className = 'error';
    text(status, e.message);
    row.dataset.result = 'error';
    return;
  }
  try {
    text(status, await addNames(names));
    status.className = 'ok';
    row.dataset.result = 'names';
  } catch (e) {
    status.className = 'error';
    text(status, e.message);
    row.dataset.result = 'error';
  }
}

export function setUpNames() {
  const area = $('#names-text'), status = $('#names-status'), box = $('#names-box');
  // files read into the box when each reads as a name list; false (and why, said) otherwise
  const append = async (files) => {
    let texts;
    try {
      texts = await Promise.all(Array.from(files).map(async (f) => nameListText(f.name, await f.arrayBuffer())));
    } catch (e) {
      status.className = 'error';
      text(status, e.message);
      return false;
    }
    area.value = [area.value.trim(), ...texts].filter(Boolean).join('\n');
    text(status, '');
    return true;
  };
  $('#names-file').addEventListener('change', async (event) => {
    await append(event.target.files);
    event.target.value = '';
  });
  // a file dropped on the names box is read into it, and its names added
  for (const name of ['dragenter', 'dragover']) box.addEventListener(name, (event) => { event.preventDefault(); box.classList.add('over'); });
  for (const name of ['dragleave', 'drop']) box.addEventListener(name, () => box.classList.remove('over'));
  box.addEventListener('drop', async (event) => {
    event.preventDefault();
    if (!event.dataTransfer.files.length) return;
    box.open = true;
    if (await append(event.dataTransfer.files)) $('#names-form').requestSubmit();
  });
  $('#names-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!area.value.trim()) { status.className = 'error'; text(status, 'paste or choose names first'); return; }
    try {
      const said = await addNames(area.value);
      status.className = 'ok';
      text(status, said);
      area.value = '';
      status.dataset.done = String(Number(status.dataset.done || 0) + 1);
    } catch (e) {
      status.className = 'error';
      text(status, e.message);
    }
  });
}
