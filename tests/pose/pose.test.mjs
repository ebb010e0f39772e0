// pose.test.mjs: animdex's poses of glTF files against three.js 0.187 (tests/scripts/pose.sh).
// For the glTF fixtures and for trees written here (a skin, unnamed nodes, a `matrix` node,
// ancestors nothing animates, STEP, LINEAR and CUBICSPLINE channels), every animation is
// uploaded to a real animdexd and posed with GET /api/resources/{id}/pose; three.js loads the
// same file with its GLTFLoader, plays the same animation with an AnimationMixer (once,
// clamped) at the same times, and updateMatrixWorld gives each node's world matrix. Every rig
// node's world matrix must equal three.js's within 1e-5, at key times, between keys and
// outside the clip's range. Prints PASS/FAIL lines and a summary.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

// three's FileLoader reports progress with the browser's ProgressEvent (data: URIs in Node)
globalThis.ProgressEvent ??= class ProgressEvent { constructor(type, init) { Object.assign(this, init, { type }); } };

const bin = process.env.ANIMDEXD;
const fixtures = process.env.ANIMDEX_FIXTURES || join(process.env.ANIMDEX_SRCDIR || '.', '..', 'shared', 'fixtures');
const dir = mkdtempSync(join(tmpdir(), 'animdex-pose-'));
const TOLERANCE = 1e-5;
let failures = 0, compared = 0, worst = 0;

function check(name, ok, detail = '') {
  console.log(`${ok ? 'PASS' : 'FAIL'}: pose ${name}${ok || !detail ? '' : ` (${detail})`}`);
  if (!ok) failures++;
}

function startDaemon() {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['--listen', '127.0.0.1:0', '--db', join(dir, 'pose.db'), '--quiet'],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (data) => {
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(String(data));
      if (m) resolve({ child, base: `http://127.0.0.1:${m[1]}` }); else reject(new Error(`no port in: ${data}`));
    });
    child.once('exit', (code) => reject(new Error(`animdexd exited with ${code}`)));
  });
}

// A .glb written from nodes, animations and float arrays (each array its own buffer view).
function glb(doc, arrays) {
  const views = [], chunks = [];
  let length = 0;
  doc.accessors = arrays.map((a, i) => {
    const bytes = Buffer.from(new Float32Array(a.data).buffer);
    views.push({ buffer: 0, byteOffset: length, byteLength: bytes.length });
    chunks.push(bytes);
    length += bytes.length;
    const accessor = { bufferView: i, componentType: 5126, count: a.data.length / a.size, type: a.type };
    if (a.type === 'SCALAR') { accessor.min = [Math.min(...a.data)]; accessor.max = [Math.max(...a.data)]; }
    return accessor;
  });
  doc.asset = { version: '2.0' };
  doc.bufferViews = views;
  doc.buffers = [{ byteLength: length }];
  let json = Buffer.from(JSON.stringify(doc));
  json = Buffer.concat([json, Buffer.alloc((4 - (json.length % 4)) % 4, 0x20)]);
  const body = Buffer.concat(chunks);
  const header = Buffer.alloc(12);
  header.write('glTF', 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + json.length + 8 + body.length, 8);
  const chunk = (type, data) => { const h = Buffer.alloc(8); h.writeUInt32LE(data.length, 0); h.writeUInt32LE(type, 4); return Buffer.concat([h, data]); };
  return Buffer.concat([header, chunk(0x4E4F534A, json), chunk(0x004E4942, body)]);
}

const S = (data) => ({ data, size: 1, type: 'SCALAR' });
const V3 = (data) => ({ data, size: 3, type: 'VEC3' });
const V4 = (data) => ({ data, size: 4, type: 'VEC4' });
const quat = (axis, angle) => { const l = Math.hypot(...axis), s = Math.sin(angle / 2); return [axis[0] * s / l, axis[1] * s / l, axis[2] * s / l, Math.cos(angle / 2)]; };

// A skinned tree: 0 a matrix node (turned, moved, scaled 2), nothing animates it; 1 its unnamed
// child, turned LINEAR; 2 "elbow", moved CUBICSPLINE; 3 an unnamed node nothing animates
// between 2 and 4; 4 "hand", scaled STEP; 5 a root of its own, a joint of the skin only.
function skinnedTree() {
  const m = new THREE.Matrix4().compose(new THREE.Vector3(1, 2, 3), new THREE.Quaternion(...quat([0, 1, 0], 0.7)), new THREE.Vector3(2, 2, 2));
  const nodes = [
    { matrix: m.elements, children: [1] },
    { children: [2], translation: [0, 1, 0] },
    { name: 'elbow', children: [3], rotation: quat([1, 0, 0], 0.3) },
    { children: [4], translation: [0.5, 0, 0], scale: [1, 3, 1] },
    { name: 'hand', translation: [0, 0.25, 0] },
    { name: 'spare', translation: [4, 0, 0] },
  ];
  const arrays = [
    S([0, 0.5, 1.5]), V4([...quat([0, 0, 1], 0), ...quat([0, 0, 1], 1.2), ...quat([1, 1, 0], 2.5)]),
    S([0, 1, 2]), V3([0, 0, 0, 0, 1, 0, 0.5, 0, 0, /**/ 1, 0, 0, 1, 1, 1, 0, 0, 0, /**/ 0, 0, -1, 2, 0, 1, 0, 0, 0]),
    S([0.25, 1.25]), V3([1, 1, 1, 2, 0.5, 1]),
    { data: [...Array(3)].flatMap(() => [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]), size: 16, type: 'MAT4' },
  ];
  return glb({
    scene: 0, scenes: [{ nodes: [0, 5] }], nodes,
    skins: [{ joints: [1, 2, 5], inverseBindMatrices: 6 }],
    animations: [{
      samplers: [{ input: 0, output: 1, interpolation: 'LINEAR' }, { input: 2, output: 3, interpolation: 'CUBICSPLINE' },
        { input: 4, output: 5, interpolation: 'STEP' }],
      channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }, { sampler: 1, target: { node: 2, path: 'translation' } },
        { sampler: 2, target: { node: 4, path: 'scale' } }],
    }],
  }, arrays);
}

// Two clips over one tree of unnamed nodes: the second animates a grandchild only.
function twoClips() {
  const nodes = [{ children: [1], rotation: quat([0, 0, 1], 0.5) }, { children: [2], translation: [1, 0, 0] }, { translation: [0, 2, 0] }];
  const arrays = [S([0, 1]), V3([0, 0, 0, 3, 0, 0]), S([0.5, 1, 3]), V4([...quat([0, 1, 0], 0), ...quat([0, 1, 0], 3), ...quat([0, 1, 0], 6)])];
  return glb({
    scene: 0, scenes: [{ nodes: [0] }], nodes,
    animations: [
      { samplers: [{ input: 0, output: 1 }], channels: [{ sampler: 0, target: { node: 1, path: 'translation' } }] },
      { name: 'spin', samplers: [{ input: 2, output: 3 }], channels: [{ sampler: 0, target: { node: 2, path: 'rotation' } }] },
    ],
  }, arrays);
}

function threeLoad(bytes) {
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  return new Promise((resolve, reject) => new GLTFLoader().parse(buffer, '', resolve, reject));
}

// three.js's world matrices (by glTF node index) of animation `index` at each time.
async function threePoses(bytes, index, times) {
  const out = [];
  for (const t of times) {
    const gltf = await threeLoad(bytes); // a fresh scene: no other clip's values left behind
    const mixer = new THREE.AnimationMixer(gltf.scene);
    const action = mixer.clipAction(gltf.animations[index]);
    action.setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.play();
    mixer.setTime(Math.max(t, 0));
    gltf.scene.updateMatrixWorld(true);
    const byNode = new Map();
    gltf.scene.traverse((o) => { const a = gltf.parser.associations.get(o); if (a && a.nodes !== undefined) byNode.set(a.nodes, o.matrixWorld.elements.slice()); });
    out.push(byNode);
  }
  return out;
}

// The times to compare at: every key, half-way between keys, before and after the range.
function timesOf(clip) {
  const keys = new Set();
  for (const track of clip.tracks) for (const t of track.times) keys.add(t);
  const sorted = [...keys].sort((a, b) => a - b), times = [...sorted];
  for (let i = 0; i + 1 < sorted.length; i++) times.push((sorted[i] + sorted[i + 1]) / 2, sorted[i] + (sorted[i + 1] - sorted[i]) / 3);
  times.push(sorted[sorted.length - 1] + 0.5, sorted[0] - 0.25);
  return times.slice(0, 400);
}

// Does t fall between two keys of a rotation track where a key is not a unit quaternion?
// (three.js slerps such keys as they are, animdex normalises them first: the fixtures'
// AnimatedTriangle has them; those samples are compared within 1e-3.)
function betweenNonUnitKeys(clip, t) {
  return clip.tracks.some((track) => {
    if (track.ValueTypeName !== 'quaternion') return false;
    const k = track.times.findIndex((x) => x > t);
    if (k <= 0) return false;
    const unit = (i) => Math.abs(Math.hypot(...track.values.slice(i * 4, i * 4 + 4)) - 1) < 1e-6;
    return !unit(k - 1) || !unit(k);
  });
}

async function compareFile(base, name, bytes) {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const res = await fetch(`${base}/api/resources`, { method: 'POST', body: form });
  const answer = await res.json();
  if (res.status !== 201) { check(`${name}: uploaded`, false, `${res.status} ${JSON.stringify(answer).slice(0, 200)}`); return; }
  const gltf = await threeLoad(bytes);
  for (const created of answer.resources) {
    const entry = await (await fetch(`${base}/api/resources/${created.id}`)).json();
    const index = entry.structure.metadata.animation_index;
    const times = timesOf(gltf.animations[index]).map((t) => Math.fround(t));
    const pose = await (await fetch(`${base}/api/resources/${created.id}/pose?t=${times.map(String).join(',')}`)).json();
    if (!pose.poses) { check(`${name} #${index}: posed`, false, JSON.stringify(pose).slice(0, 200)); continue; }
    const three = await threePoses(bytes, index, times);
    let bad = null, nodes = 0, relaxed = 0;
    pose.poses.forEach((p, k) => {
      const tolerance = betweenNonUnitKeys(gltf.animations[index], times[k]) ? (relaxed++, 1e-3) : TOLERANCE;
      pose.nodes.forEach((node, n) => {
        const want = three[k].get(node.source);
        if (!want) { bad ??= `three.js has no node ${node.source}`; return; }
        nodes++;
        for (let e = 0; e < 16; e++) {
          const error = Math.abs(p.world[n][e] - want[e]) / Math.max(1, Math.abs(want[e]));
          if (tolerance === TOLERANCE) worst = Math.max(worst, error);
          compared++;
          if (error > tolerance && !bad) bad = `node ${node.source} (${node.name}) at t=${times[k]}, element ${e}: animdex ${p.world[n][e]}, three.js ${want[e]}`;
        }
      });
    });
    check(`${name} animation ${index} (${entry.name}): ${pose.nodes.length} rig nodes x ${times.length} times equal three.js's world matrices` +
      (relaxed ? ` (${relaxed} times between non-unit quaternion keys within 1e-3)` : ''), !bad && nodes > 0, bad || 'nothing compared');
  }
}

const { child, base } = await startDaemon();
try {
  const files = [['skinned-tree.glb', skinnedTree()], ['two-clips.glb', twoClips()]];
  for (const f of ['BoxAnimated.gltf', 'AnimatedTriangle.gltf', 'InterpolationTest.embedded-notextures.gltf']) {
    const path = join(fixtures, 'gltf', f);
    if (existsSync(path)) files.push([basename(path), readFileSync(path)]);
    else console.log(`SKIP: pose ${f}: the fixtures folder ${fixtures} is absent (set ANIMDEX_FIXTURES)`);
  }
  for (const [name, bytes] of files) await compareFile(base, name, bytes);
} catch (e) {
  check('ran to its end', false, e.stack);
} finally {
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
console.log(`pose: ${compared} matrix elements compared with three.js 0.187, largest relative difference ${worst.toPrecision(3)} (outside non-unit quaternion keys)`);
process.exit(failures ? 1 : 0);
