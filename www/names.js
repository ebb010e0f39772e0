// names.js: names from the page: what POST /api/names takes, pasted or read from a file.

import { api } from '/api.js';
import { loadCatalogue } from '/catalogue.js';
import { $, text } from '/dom.js';
import { openEntry } from '/entry.js';
import { state, readUrl } from '/state.js';
import { count } from '/words.js';

// Names from the page: what POST /api/names takes, pasted or read from a file; once stored, the
// list and the open entry are read again, so every hash they name shows its name.
export function setUpNames() {
  const area = $('#names-text'), status = $('#names-status');
  $('#names-file').addEventListener('change', async (event) => {
    const chosen = Array.from(event.target.files);
    const texts = await Promise.all(chosen.map((f) => f.text()));
    area.value = [area.value.trim(), ...texts].filter(Boolean).join('\n');
    event.target.value = '';
  });
  $('#names-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    if (!area.value.trim()) { status.className = 'error'; text(status, 'paste or choose names first'); return; }
    try {
      const answer = await api('/api/names', { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: area.value });
      status.className = 'ok';
      text(status, `${count(answer.added, 'name', 'names')} added${answer.known ? `, ${answer.known} known already` : ''}`);
      area.value = '';
      await loadCatalogue();
      if (state.entry) {
        const view = readUrl();
        await openEntry(state.entry.id, state.selected, state.window,
          { skeleton: view.skeleton, t: view.t, speed: view.speed, cam: view.cam, grid: view.grid, compare: view.compare });
      }
      status.dataset.done = String(Number(status.dataset.done || 0) + 1);
    } catch (e) {
      status.className = 'error';
      text(status, e.message);
    }
  });
}
