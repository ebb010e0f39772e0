// bones.js: the bone list: the rig the view shows as a tree, found by name.

import { $, text, make } from '/dom.js';
import { selectTracks } from '/entry.js';
import { state } from '/state.js';
import { count } from '/words.js';

// The bone list: the rig the view shows as a tree (its names, or its handles as the
// catalogue's name lists name them), found by name, "animated only" keeping the bones that
// tracks move (and the bones above them, dimmed, so that the tree holds). Choosing a bone
// selects its joint in the view and charts its tracks; choosing a joint or ticking a track
// chooses its bone here.

export function renderBones() {
  const view = state.motion && state.motion.view;
  const box = $('#bones-box');
  if (!view || !view.entry || !view.nodes.length || view.entry.id !== (state.entry && state.entry.id)) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const nodes = view.nodes;
  const filter = $('#bone-filter').value.trim().toLowerCase();
  const animatedOnly = $('#animated-only').checked;
  const wanted = nodes.map((n, i) => (!filter || String(n.name || '').toLowerCase().includes(filter))
    && (!animatedOnly || view.tracksOf.has(i)));
  // what is shown: the bones wanted and every bone above them (one walk up each)
  const shown = new Array(nodes.length).fill(false);
  nodes.forEach((n, i) => { for (let j = wanted[i] ? i : -1; j >= 0 && !shown[j]; j = nodes[j].parent) shown[j] = true; });
  const items = new Map(), roots = [];
  nodes.forEach((n, i) => {
    if (!shown[i]) return;
    const tracks = view.tracksOf.get(i) || [];
    const li = make('li', { role: 'treeitem', 'data-node': String(i), 'aria-selected': String(view.selected === i) });
    const label = make('button', { type: 'button', class: wanted[i] ? 'bone' : 'bone context', text: String(n.name) });
    if (tracks.length) label.append(make('span', { class: 'bone-tracks', text: ` ${count(tracks.length, 'track', 'tracks')}` }));
    label.addEventListener('click', () => chooseBone(i));
    li.append(label);
    items.set(i, li);
  });
  // children in the order of the rig, under their parent; a bone whose parent is hidden is a root
  nodes.forEach((n, i) => {
    const li = items.get(i);
    if (!li) return;
    const parent = n.parent >= 0 ? items.get(n.parent) : null;
    if (!parent) { roots.push(li); return; }
    let group = parent.querySelector(':scope > ul');
    if (!group) { group = make('ul', { role: 'group' }); parent.append(group); }
    group.append(li);
  });
  $('#bones').replaceChildren(...roots);
  text($('#bone-count'), filter || animatedOnly ? `(${wanted.filter(Boolean).length} of ${nodes.length})` : `(${nodes.length})`);
}

// Bone i chosen in the list: its joint in the view, its tracks on the chart.
export function chooseBone(i) {
  const view = state.motion.view;
  view.select(i);
  markBone(i);
  selectTracks(view.tracksOf.get(i) || []);
}

// Bone i marked as the chosen one in the list (-1: none), brought into sight.
export function markBone(i) {
  for (const li of document.querySelectorAll('#bones li[aria-selected="true"]')) li.setAttribute('aria-selected', 'false');
  const li = document.querySelector(`#bones li[data-node="${i}"]`);
  if (!li) return;
  li.setAttribute('aria-selected', 'true');
  li.querySelector('button').scrollIntoView({ block: 'nearest' });
}

export function setUpBones() {
  $('#bone-filter').addEventListener('input', renderBones);
  $('#animated-only').addEventListener('change', renderBones);
}
