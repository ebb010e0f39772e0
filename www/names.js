// names.js: names from the page: what POST /api/names takes (one a line, as a BigFile's name
// list has them), pasted, chosen, or dropped as a .txt file on the page; once stored, the list
// and the open entry are read again, so every hash they name shows its name at once.

import { api } from '/api.js';
import { loadCatalogue } from '/catalogue.js';
import { $, text, make } from '/dom.js';
import { openEntry } from '/entry.js';
import { state, readUrl } from '/state.js';
import { count } from '/words.js';

// A name list's file: a .txt (animdex reads no animation from one).
export const isNameList = (file) => /\.txt$/i.test(file.name);

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
  const row = make('li', { class: 'names' }, [make('span', { text: `${file.name} (a name list)` }), make('span'), status]);
  $('#uploads').prepend(row);
  try {
    text(status, await addNames(await file.text()));
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
  const append = async (files) => {
    const texts = await Promise.all(Array.from(files).map((f) => f.text()));
    area.value = [area.value.trim(), ...texts].filter(Boolean).join('\n');
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
    await append(event.dataTransfer.files);
    $('#names-form').requestSubmit();
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
