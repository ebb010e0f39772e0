// view3d.js: the entry's motion in 3D, beside the chart. animdex evaluates, the page draws: the
// poses come from GET /api/resources/{id}/pose, as a float32 sweep of the chart's window
// (refetched when the window changes), and exactly at a time the user stops on (a pause, a
// scrub, a step); a frame of playback costs no request. three.js is Debian's libjs-three,
// served by the daemon under /vendor/three/ (ES modules, no build step).
import * as THREE from '/vendor/three/build/three.module.js';
import { OrbitControls } from '/vendor/three/examples/jsm/controls/OrbitControls.js';
import { GLTFLoader } from '/vendor/three/examples/jsm/loaders/GLTFLoader.js';
import { keptByFocus } from '/shortcuts.js';
import { begin, during, publish } from '/status.js';
import { NODE_FLOATS, nearest, playback, shortest } from '/view_frames.js';
import { framing, skyCube, webglAvailable } from '/view_camera.js';
import { joinGltf, splitGltf } from '/view_gltf.js';

const SWEEP_MAX = 4000; // times in one sweep
const SAMPLE_BUDGET = 1000000; // the daemon's default --max-samples counts nodes x times

const $ = (selector) => document.querySelector(selector);

// hooks: api(path) -> JSON, auth() -> headers, window() -> [lo, hi], onTime(t, exact),
// onSelectTracks([n...]), onChange() (the URL), playing state is the view's.
export class MotionView {
  constructor(hooks) {
    this.hooks = hooks;
    this.canvas = $('#view');
    this.renderer = new THREE.WebGLRenderer({ canvas: this.canvas, antialias: true, preserveDrawingBuffer: true });
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.scene = new THREE.Scene();
    // the page's soft background, light or dark as the page is
    const soft = getComputedStyle(document.documentElement).getPropertyValue('--soft').trim();
    this.scene.background = new THREE.Color(/^#[0-9a-f]{6}$/i.test(soft) ? soft : '#f5f7fa');
    this.camera = new THREE.PerspectiveCamera(45, 1, 0.001, 10000);
    this.camera.position.set(2, 2, 4);
    this.controls = new OrbitControls(this.camera, this.canvas);
    this.controls.addEventListener('change', () => { this.render(); this.hooks.onChange(); });
    this.scene.add(new THREE.AmbientLight(0xffffff, 0.8));
    const light = new THREE.DirectionalLight(0xffffff, 0.6);
    light.position.set(3, 5, 4);
    this.scene.add(light);
    this.skeleton = new THREE.Group();
    this.scene.add(this.skeleton);
    this.grid = null;
    this.axes = new THREE.AxesHelper(1);
    this.axes.matrixAutoUpdate = false;
    this.axes.visible = false;
    this.scene.add(this.axes);
    this.raycaster = new THREE.Raycaster();
    this.entry = null;
    this.nodes = []; // [{source, name, parent (index), sphere}]
    this.tracksOf = new Map(); // node index -> track numbers that move it
    this.sweep = null; // {times: Float32Array, data: Float32Array}
    this.shown = null; // {t, values: Float32Array of nodes x 26} what is drawn
    this.time = 0;
    this.playing = false;
    this.speed = 1;
    this.loop = true;
    this.fps = 30;
    this.inFrames = false; // times shown in frames (the ruler, the time text, the readout)
    this.mode = 'skeleton';
    this.mesh = null; // {root, objects: [Object3D by node index]}
    this.selected = -1;
    this.range = null; // the loop range, or null for the window
    this.direction = 1;
    this.skeletonId = null; // null: the entry's own rig
    this.ghost = null; // {id, sweep, group, bones}: another entry posed on the same rig, in grey
    this.generation = 0;
    this.seeks = 0; // seeks asked for: an answer to an older one is dropped
    this.answered = 0; // answers to seeks handled
    this.frames = 0; // frames of playback drawn (for a reader of the DOM)
    this.sweeps = 0;
    this.setUpEvents();
    new ResizeObserver(() => this.resize()).observe(this.canvas.parentElement);
    this.resize();
  }

  resize() {
    const box = this.canvas.parentElement;
    const width = Math.max(box.clientWidth, 100), height = Math.max(box.clientHeight, 100);
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.render();
  }

  render() { this.renderer.render(this.scene, this.camera); }

  // A new entry (or a new skeleton for it): its rig from a pose at the current time, then the
  // sweep of the window.
  async show(entry, options = {}) {
    return during(() => this.showNow(entry, options));
  }

  async showNow(entry, options) {
    const generation = ++this.generation;
    this.entry = entry;
    this.playing = false;
    if (this.ghost) this.scene.remove(this.ghost.group);
    this.ghost = null;
    this.skeletonId = options.skeleton ?? null;
    if (options.time !== undefined) this.time = options.time;
    const first = await this.hooks.api(`/api/resources/${entry.id}/pose?t=${this.time}${this.poseQuery()}`);
    if (generation !== this.generation) return;
    this.answer = first;
    this.buildRig(first);
    this.applyExact(first);
    await this.loadMesh(entry, generation);
    // a link's camera and grid, as its sender saw them; else framed
    if (options.camera) { this.setCamera(options.camera); this.setGrid(options.grid); } else this.frameAll();
    await this.refreshSweep();
    this.updatePlayback();
  }

  // How the view's rig is posed: on a skeleton (retargeted onto it, when the page says so).
  retargetQuery() { return this.skeletonId && this.hooks.retarget ? this.hooks.retarget() : ''; }

  poseQuery() { return this.skeletonId ? `&skeleton=${this.skeletonId}${this.retargetQuery()}` : ''; }

  buildRig(answer) {
    // the bone chosen on the rig shown before is chosen again on this one, by name, if it has it
    const chosen = this.selected >= 0 && this.nodes && this.nodes[this.selected] ? this.nodes[this.selected].name : null;
    this.skeleton.clear?.();
    while (this.skeleton.children.length) this.skeleton.remove(this.skeleton.children[0]);
    const index = new Map(answer.nodes.map((n, i) => [n.source, i]));
    // a bone known by its handle alone is called by it (as the chart calls it), not "node 3"
    const nameOf = (n) => (n.handle && n.name === `node ${n.source}` ? n.handle : n.name);
    this.nodes = answer.nodes.map((n) => ({ source: n.source, name: nameOf(n), parent: n.parent === null ? -1 : index.get(n.parent) }));
    this.tracksOf = new Map();
    for (const t of answer.tracks) {
      if (t.node === null) continue;
      const i = index.get(t.node);
      this.tracksOf.set(i, [...(this.tracksOf.get(i) || []), t.n]);
    }
    const material = new THREE.MeshLambertMaterial({ color: 0x1f6feb });
    const still = new THREE.MeshLambertMaterial({ color: 0x8c959f });
    const geometry = new THREE.SphereBufferGeometry(1, 14, 10);
    for (const [i, node] of this.nodes.entries()) {
      node.sphere = new THREE.Mesh(geometry, this.tracksOf.has(i) ? material : still);
      node.sphere.userData.node = i;
      this.skeleton.add(node.sphere);
    }
    for (const node of this.nodes) node.leaf = true;
    for (const node of this.nodes) if (node.parent >= 0) this.nodes[node.parent].leaf = false;
    // a bone to each node from its parent, and from each leaf a tip along its y axis, so
    // that a leaf's rotation shows
    const segments = this.nodes.filter((n) => n.parent >= 0).length + this.nodes.filter((n) => n.leaf).length;
    const lines = new THREE.BufferGeometry();
    lines.setAttribute('position', new THREE.BufferAttribute(new Float32Array(Math.max(segments, 1) * 6), 3));
    this.bones = new THREE.LineSegments(lines, new THREE.LineBasicMaterial({ color: 0x24292f }));
    this.skeleton.add(this.bones);
    this.selected = chosen === null ? -1 : this.nodes.findIndex((n) => n.name === chosen);
    this.canvas.dataset.selected = this.selected >= 0 ? String(chosen) : '';
    this.axes.visible = false;
  }

  // The glTF upload's meshes, moved by the same pose (own rig only).
  async loadMesh(entry, generation) {
    if (this.mesh) this.scene.remove(this.mesh.root);
    this.mesh = null;
    $('#view-mode').disabled = true;
    if (entry.family !== 'gltf' || this.skeletonId) return;
    try {
      const response = await fetch(`/api/resources/${entry.id}/raw`, { headers: this.hooks.auth() });
      if (!response.ok) return;
      const { doc, bin } = splitGltf(await response.arrayBuffer());
      if (generation !== this.generation || !(doc.meshes && doc.meshes.length)) return; // no mesh to show
      // animdex poses the nodes: three.js's own clips would be made for nothing (a 200,000-key
      // file's would cost more than the mesh)
      delete doc.animations;
      // a .gltf whose images were not uploaded with it (their files named, not kept): the mesh
      // without its textures, said so, rather than no mesh
      let note = '';
      const missing = (doc.images || []).filter((i) => i.uri && !i.uri.startsWith('data:')).map((i) => i.uri);
      if (missing.length) {
        delete doc.images; delete doc.textures; delete doc.samplers;
        for (const m of doc.materials || []) {
          for (const k of ['normalTexture', 'occlusionTexture', 'emissiveTexture']) delete m[k];
          if (m.pbrMetallicRoughness) { delete m.pbrMetallicRoughness.baseColorTexture; delete m.pbrMetallicRoughness.metallicRoughnessTexture; }
        }
        note = `The mesh shows without its ${missing.length === 1 ? 'texture' : 'textures'} (${missing.join(', ')}): `
          + 'upload the image files with the .gltf to see them.';
      }
      const bytes = joinGltf(doc, bin);
      const gltf = await new Promise((resolve, reject) => new GLTFLoader().parse(bytes, '', resolve, reject));
      if (generation !== this.generation) return;
      let meshes = 0;
      gltf.scene.traverse((o) => { if (o.isMesh) meshes++; });
      if (!meshes) return;
      const objects = await Promise.all(this.nodes.map((n) => gltf.parser.getDependency('node', n.source)));
      this.environment = this.environment || skyCube();
      gltf.scene.traverse((o) => {
        for (const m of o.isMesh ? [o.material].flat() : []) {
          if (m && m.isMeshStandardMaterial && !m.envMap) { m.envMap = this.environment; m.needsUpdate = true; }
        }
      });
      this.mesh = { root: gltf.scene, objects };
      this.scene.add(gltf.scene);
      if (this.shown) this.draw(this.shown.values, this.shown.t); // posed as the skeleton is, at once
      $('#view-mode').disabled = false;
      // a mesh shows with its bones over it, unless the user chose otherwise
      if (!this.modeChosen) $('#view-mode').value = 'both';
      $('#view-mode').dataset.textures = String(gltf.parser.json.textures ? gltf.parser.json.textures.length : 0);
      this.applyMode();
      if (note) this.hooks.onMeshNote?.(note);
    } catch (e) {
      this.mesh = null; // the skeleton still shows, and why the mesh does not is said
      this.hooks.onMeshNote?.(`The mesh cannot be shown: ${e.message || e}. The skeleton still moves.`);
    }
  }

  applyMode() {
    this.mode = $('#view-mode').value;
    this.skeleton.visible = !this.mesh || this.mode !== 'mesh';
    if (this.mesh) this.mesh.root.visible = this.mode !== 'skeleton';
    // with the mesh, the bones are drawn over it (as Blender's "In Front"), never hidden inside
    const over = !!this.mesh && this.mode === 'both';
    this.skeleton.traverse((o) => {
      o.renderOrder = over ? 1 : 0;
      if (o.material && o.material.depthTest === over) { o.material.depthTest = !over; o.material.needsUpdate = true; }
    });
    this.render();
  }

  // Another entry (a version being compared) posed on the same rig, drawn in grey at the same
  // time from a sweep of its own; null removes it.
  async setGhost(id) {
    if (this.ghost) this.scene.remove(this.ghost.group);
    this.ghost = null;
    this.canvas.dataset.ghost = 'off';
    if (!id || !this.entry || !this.nodes.length) { this.render(); return; }
    const sweep = await this.fetchSweep(id, this.skeletonId || this.entry.id);
    if (!sweep) return;
    const group = new THREE.Group();
    const lines = new THREE.BufferGeometry();
    lines.setAttribute('position', new THREE.BufferAttribute(new Float32Array(this.bones.geometry.attributes.position.array.length), 3));
    const bones = new THREE.LineSegments(lines, new THREE.LineBasicMaterial({ color: 0x8c959f, transparent: true, opacity: 0.8 }));
    group.add(bones);
    this.scene.add(group);
    this.ghost = { id, sweep, group, bones };
    this.canvas.dataset.ghost = 'on';
    if (this.shown) this.draw(this.shown.values, this.shown.t);
  }

  drawGhost(t) {
    const g = this.ghost;
    if (!g || !g.sweep.times.length) return;
    const k = nearest(g.sweep.times, t);
    this.segments(g.sweep.data.subarray(k * g.sweep.stride + 1), g.bones.geometry.attributes.position);
    g.bones.geometry.computeBoundingSphere();
  }

  // The bones of node values (nodes x 26 floats) into a LineSegments' positions: parent to
  // node, and a tip from each leaf along its y axis, as long as the bones are on average.
  segments(values, positions) {
    const out = positions.array;
    let s = 0, total = 0, bones = 0;
    for (const [i, node] of this.nodes.entries()) {
      if (node.parent < 0) continue;
      const w = i * NODE_FLOATS + 10, p = node.parent * NODE_FLOATS + 10;
      out.set([values[p + 12], values[p + 13], values[p + 14], values[w + 12], values[w + 13], values[w + 14]], s++ * 6);
      total += Math.hypot(values[w + 12] - values[p + 12], values[w + 13] - values[p + 13], values[w + 14] - values[p + 14]);
      bones++;
    }
    const tip = bones && total > 0 ? (0.5 * total) / bones : 0.1;
    for (const [i, node] of this.nodes.entries()) {
      if (!node.leaf) continue;
      const w = i * NODE_FLOATS + 10;
      const y = [values[w + 4], values[w + 5], values[w + 6]];
      const length = Math.hypot(...y) || 1;
      out.set([values[w + 12], values[w + 13], values[w + 14], values[w + 12] + (y[0] / length) * tip,
        values[w + 13] + (y[1] / length) * tip, values[w + 14] + (y[2] / length) * tip], s++ * 6);
    }
    positions.needsUpdate = true;
  }

  // A float32 sweep of the chart's window: entry id posed on the rig of entry `rig` (null: its
  // own). {times, data, stride, lo, hi}, or null when it is not this rig's (or failed).
  async fetchSweep(id, rig, retargeted = false) {
    const [lo, hi] = this.hooks.window();
    const count = Math.max(2, Math.min(SWEEP_MAX, Math.floor(SAMPLE_BUDGET / this.nodes.length), Math.ceil(Math.max(hi - lo, 0) * 120) + 1));
    const query = `from=${lo}&to=${hi}&count=${count}&format=f32${rig ? `&skeleton=${rig}` : ''}${retargeted ? this.retargetQuery() : ''}`;
    const response = await fetch(`/api/resources/${id}/pose?${query}`, { headers: this.hooks.auth() });
    if (!response.ok) return null;
    const data = new Float32Array(await response.arrayBuffer());
    const stride = 1 + this.nodes.length * NODE_FLOATS;
    if (data.length % stride) return null; // another rig than the one drawn
    const times = new Float32Array(data.length / stride);
    for (let k = 0; k < times.length; k++) times[k] = data[k * stride];
    return { times, data, stride, lo, hi };
  }

  // The sweep of the chart's window, fetched again when the window changes (not when only the
  // tracks charted do: a sweep poses the whole rig); answers older than the last one asked for
  // are dropped.
  async refreshSweep() {
    if (!this.entry || !this.nodes.length) return;
    const [lo, hi] = this.hooks.window(), had = this.sweep;
    if (had && had.generation === this.generation && had.lo === lo && had.hi === hi) return;
    const generation = this.generation, asked = ++this.sweeps;
    const sweep = await during(() => this.fetchSweep(this.entry.id, this.skeletonId, true));
    if (!sweep || generation !== this.generation || asked !== this.sweeps) return;
    sweep.generation = generation;
    this.sweep = sweep;
    $('#view').dataset.sweep = String(sweep.times.length);
  }

  // Draws node values (nodes x 26 floats: local TRS, world matrix) at time t.
  draw(values, t) {
    const box = new THREE.Box3();
    for (const [i, node] of this.nodes.entries()) {
      const w = i * NODE_FLOATS + 10;
      node.sphere.position.set(values[w + 12], values[w + 13], values[w + 14]);
      box.expandByPoint(node.sphere.position);
    }
    this.segments(values, this.bones.geometry.attributes.position);
    const ends = this.bones.geometry.attributes.position.array, point = new THREE.Vector3();
    for (let e = 0; e + 2 < ends.length; e += 3) box.expandByPoint(point.set(ends[e], ends[e + 1], ends[e + 2]));
    this.bones.geometry.computeBoundingSphere();
    const size = Math.max(box.getSize(new THREE.Vector3()).length(), 1e-3);
    const radius = size * 0.02;
    for (const node of this.nodes) node.sphere.scale.setScalar(radius);
    if (this.selected >= 0) {
      const w = this.selected * NODE_FLOATS + 10;
      this.axes.matrix.fromArray(values, w);
      this.axes.matrix.multiply(new THREE.Matrix4().makeScale(size * 0.08, size * 0.08, size * 0.08));
      this.axes.visible = true;
    }
    if (this.mesh) {
      for (const [i, object] of this.mesh.objects.entries()) {
        if (!object) continue;
        const l = i * NODE_FLOATS;
        object.position.set(values[l], values[l + 1], values[l + 2]);
        object.quaternion.set(values[l + 3], values[l + 4], values[l + 5], values[l + 6]);
        object.scale.set(values[l + 7], values[l + 8], values[l + 9]);
      }
      this.mesh.root.updateMatrixWorld(true);
    }
    this.drawGhost(t);
    if (!this.grid) this.placeGrid(1, 0, 0, 0);
    this.extent = { box, size };
    this.shown = { t, values };
    this.render();
    this.fillJoints();
  }

  // A JSON pose answer's one pose as node values, then drawn: exact at its time.
  applyExact(answer) {
    const pose = answer.poses[0];
    const values = new Float32Array(this.nodes.length * NODE_FLOATS);
    for (let i = 0; i < this.nodes.length; i++) {
      values.set(pose.translation[i], i * NODE_FLOATS);
      values.set(pose.rotation[i], i * NODE_FLOATS + 3);
      values.set(pose.scale[i], i * NODE_FLOATS + 7);
      values.set(pose.world[i], i * NODE_FLOATS + 10);
    }
    this.time = pose.t;
    this.draw(values, pose.t);
    this.updatePlayback();
    publish('pose', pose.t);
  }

  // The pose exactly at t, from animdex (one request: a stop, not a frame).
  async seek(t, notify = true) {
    if (!this.entry || !this.nodes.length) return;
    const generation = this.generation, asked = ++this.seeks;
    this.time = t;
    const end = begin();
    let answer;
    try {
      answer = await this.hooks.api(`/api/resources/${this.entry.id}/pose?t=${t}${this.poseQuery()}`);
    } catch (e) { end(); throw e; }
    // answers may come back out of order: only the last one asked for is shown (the view counts
    // the answers it has handled, shown or not, for a reader of the DOM)
    $('#view').dataset.answered = String(++this.answered);
    if (generation !== this.generation || asked !== this.seeks || this.playing) { end(); return; }
    this.applyExact(answer);
    end();
    if (notify) this.hooks.onTime(answer.poses[0].t, true);
  }

  fillJoints() {
    const table = $('#joints');
    table.dataset.time = this.shown ? String(this.shown.t) : '';
    if (!$('#joints-box').open && !table.dataset.filled) return;
    const values = this.shown.values;
    table.dataset.filled = 'true';
    $('#joints tbody').replaceChildren(...this.nodes.map((node, i) => {
      const w = i * NODE_FLOATS + 10;
      const world = [values[w + 12], values[w + 13], values[w + 14]].map(shortest);
      const row = document.createElement('tr');
      row.dataset.node = String(node.source);
      row.dataset.world = world.join(' ');
      for (const text of [node.name, world.join(', ')]) {
        const td = document.createElement('td');
        td.textContent = text;
        row.append(td);
      }
      return row;
    }));
  }

  // Node i selected (its joint drawn larger, its axes shown); -1 for none.
  // Node i chosen (-1: none): its axes drawn at the next frame, once however many are chosen
  // before it (ticking many tracks chooses a joint a tick).
  select(i) {
    this.selected = i;
    this.canvas.dataset.selected = i >= 0 ? String(this.nodes[i].name) : '';
    if (!this.shown || this.selectFrame) return;
    this.selectFrame = requestAnimationFrame(() => {
      this.selectFrame = 0;
      if (this.shown) this.draw(this.shown.values, this.shown.t);
    });
  }

  // The node a track moves, or -1.
  nodeOfTrack(n) {
    for (const [i, tracks] of this.tracksOf) if (tracks.includes(n)) return i;
    return -1;
  }

  pick(event) {
    const rect = this.canvas.getBoundingClientRect();
    const mouse = new THREE.Vector2(((event.clientX - rect.left) / rect.width) * 2 - 1, -((event.clientY - rect.top) / rect.height) * 2 + 1);
    this.raycaster.setFromCamera(mouse, this.camera);
    const hit = this.raycaster.intersectObjects(this.nodes.map((n) => n.sphere))[0];
    return hit ? hit.object.userData.node : -1;
  }

  setUpEvents() {
    const tip = $('#view-tip');
    this.canvas.addEventListener('pointermove', (event) => {
      const i = this.pick(event);
      tip.hidden = i < 0;
      if (i >= 0) {
        tip.textContent = this.nodes[i].name;
        tip.style.left = `${event.offsetX + 12}px`;
        tip.style.top = `${event.offsetY + 8}px`;
      }
    });
    this.canvas.addEventListener('click', (event) => {
      const i = this.pick(event);
      if (i < 0) return;
      this.select(i);
      this.hooks.onSelectNode?.(i);
      this.hooks.onSelectTracks(this.tracksOf.get(i) || []);
    });
    $('#play').addEventListener('click', () => (this.playing ? this.pause() : this.play()));
    $('#step-back').addEventListener('click', () => this.step(-1));
    $('#step-forward').addEventListener('click', () => this.step(1));
    $('#scrub').addEventListener('input', () => {
      const [lo, hi] = this.hooks.window();
      this.playing = false;
      this.seek(lo + ((hi - lo) * Number($('#scrub').value)) / 1000);
    });
    $('#speed').addEventListener('change', () => { this.speed = Number($('#speed').value); this.hooks.onChange(); });
    $('#loop').addEventListener('change', () => { this.loop = $('#loop').checked; });
    $('#go-frame').addEventListener('change', () => {
      const f = Number($('#go-frame').value);
      if ($('#go-frame').value !== '' && Number.isFinite(f)) this.goToFrame(f);
    });
    $('#fps').addEventListener('change', () => {
      const f = Number($('#fps').value);
      if (!(f >= 1 && f <= 240)) return;
      this.fps = f;
      this.fpsChosen = true; // kept from entry to entry
      $('#fps-source').textContent = '';
      this.updatePlayback();
    });
    $('#frame-all').addEventListener('click', () => { this.frameAll(); this.hooks.onChange(); });
    $('#view-mode').addEventListener('change', () => { this.modeChosen = true; this.applyMode(); });
    $('#joints-box').addEventListener('toggle', () => this.fillJoints());
    document.addEventListener('keydown', (event) => {
      if (!this.entry || $('#entry').hidden || $('#playback').hidden || keptByFocus(event)) return;
      if (event.key === ' ') { event.preventDefault(); if (this.playing) this.pause(); else this.play(); }
      else if (event.key === 'ArrowRight') { event.preventDefault(); this.step(1); }
      else if (event.key === 'ArrowLeft') { event.preventDefault(); this.step(-1); }
    });
  }
}

Object.assign(MotionView.prototype, playback, framing);
export { webglAvailable };
