// retarget.test.mjs: animdex's mode=world retarget against three.js 0.187's
// SkeletonUtils.retarget (tests/scripts/retarget.sh). Debian's CMU take 01_01 (assimp-testmodels)
// is uploaded to a real animdexd with a rig made here from its skeleton: the arms 45 degrees
// down, every bone with world axes of its own. GET .../retarget?onto=RIG&mode=world&format=glb is
// uploaded again and posed at 40 frames of the take; three.js poses the take's skeleton as animdex
// poses it at each frame, retargets onto the same rig with SkeletonUtils.retarget (names as they
// are, hip "Hips"), and every bone's world rotation must equal animdex's within 1e-5.
//
// With --bench it prints, instead, the time of one retarget of the whole take: animdex's answer
// (GET .../retarget?summary=1, its quality figures included) and three.js's retargetClip of the
// BVHLoader's clip onto the same rig, name<TAB>value<TAB>unit (tests/bench/run.sh).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as THREE from 'three';
import { BVHLoader } from 'three/addons/loaders/BVHLoader.js';
import { retarget, retargetClip } from 'three/addons/utils/SkeletonUtils.js';

const TAKE = '/usr/share/assimp/models/BVH/01_01.bvh';
const TOLERANCE = 1e-5;
const bench = process.argv.includes('--bench');
const bin = process.env.ANIMDEXD;
const dir = mkdtempSync(join(tmpdir(), 'animdex-retarget-'));
let failures = 0;

function check(name, ok, detail = '') {
  console.log(`${ok ? 'PASS' : 'FAIL'}: retarget ${name}${ok || !detail ? '' : ` (${detail})`}`);
  if (!ok) failures++;
}

function startDaemon() {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ['--listen', '127.0.0.1:0', '--db', join(dir, 'retarget.db'), '--quiet'],
      { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.once('data', (data) => {
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(String(data));
      if (m) resolve({ child, base: `http://127.0.0.1:${m[1]}` }); else reject(new Error(`no port in: ${data}`));
    });
    child.once('exit', (code) => reject(new Error(`animdexd exited with ${code}`)));
  });
}

async function upload(base, name, bytes) {
  const form = new FormData();
  form.append('file', new Blob([bytes]), name);
  const res = await fetch(`${base}/api/resources`, { method: 'POST', body: form });
  const answer = await res.json();
  if (res.status !== 201) throw new Error(`upload ${name}: ${res.status} ${JSON.stringify(answer).slice(0, 200)}`);
  return answer.resources[0].id;
}

async function json(base, path) {
  const res = await fetch(`${base}${path}`);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
  return body;
}

// Bones from an entry's rig (parents first, as a BVH rig is), at rest.
function bonesOf(rig) {
  const bones = rig.map((n) => {
    const b = new THREE.Bone();
    b.name = n.name;
    b.position.fromArray(n.translation);
    b.quaternion.fromArray(n.rotation);
    b.scale.fromArray(n.scale);
    return b;
  });
  rig.forEach((n, i) => { if (n.parent !== null) bones[n.parent].add(bones[i]); });
  bones[0].updateMatrixWorld(true);
  return bones;
}

// A .glb of the JSON chunk alone: a node tree, no buffer.
function glbOf(doc) {
  let text = Buffer.from(JSON.stringify(doc));
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const header = Buffer.alloc(20);
  header.write('glTF', 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + text.length, 8);
  header.writeUInt32LE(text.length, 12);
  header.writeUInt32LE(0x4E4F534A, 16);
  return Buffer.concat([header, text]);
}

// The take's skeleton with the arms turned 45 degrees down about the shoulders, and each bone
// given world axes of its own (a fixed sequence of turns), as a glTF node tree.
function aPoseRig(rig) {
  const bones = bonesOf(rig);
  const at = bones.map((b) => b.getWorldPosition(new THREE.Vector3()));
  const index = (name) => rig.findIndex((n) => n.name === name);
  const under = (i, a) => { for (let k = i; k !== null; k = rig[k].parent) if (k === a) return true; return false; };
  for (const [arm, fore] of [['LeftArm', 'LeftForeArm'], ['RightArm', 'RightForeArm']]) {
    const a = index(arm), f = index(fore);
    const along = at[f].clone().sub(at[a]);
    const axis = along.clone().cross(new THREE.Vector3(0, -1, 0)).normalize();
    const turn = new THREE.Quaternion().setFromAxisAngle(axis, Math.PI / 4);
    rig.forEach((_, i) => { if (i !== a && under(i, a)) at[i] = at[i].clone().sub(at[a]).applyQuaternion(turn).add(at[a]); });
  }
  let seed = 9;
  const random = () => { seed = (seed * 1664525 + 1013904223) >>> 0; return seed / 2 ** 31 - 1; };
  const axes = rig.map(() => new THREE.Quaternion().setFromAxisAngle(new THREE.Vector3(random(), random(), 1).normalize(), 3 * random()));
  const nodes = rig.map((n, i) => {
    const p = n.parent, back = p === null ? new THREE.Quaternion() : axes[p].clone().invert();
    const off = at[i].clone().sub(p === null ? new THREE.Vector3() : at[p]).applyQuaternion(back);
    return { name: n.name, translation: off.toArray(), rotation: back.multiply(axes[i]).toArray() };
  });
  rig.forEach((n, i) => { if (n.parent !== null) (nodes[n.parent].children ??= []).push(i); });
  return glbOf({ asset: { version: '2.0' }, nodes, scenes: [{ nodes: [0] }], scene: 0 });
}

// A skinned target for SkeletonUtils: the rig's bones under a mesh, bound at rest.
function targetOf(rig) {
  const bones = bonesOf(rig);
  const mesh = new THREE.SkinnedMesh(new THREE.BufferGeometry(), new THREE.MeshBasicMaterial());
  mesh.add(bones[0]);
  mesh.updateMatrixWorld(true);
  mesh.bind(new THREE.Skeleton(bones));
  return { mesh, bones };
}

const frames = Array.from({ length: 40 }, (_, k) => Math.fround(k * 68 * Math.fround(0.0083333)));

async function compareWorld(base, take, rigId) {
  const takeRig = (await json(base, `/api/resources/${take}`)).rig;
  const targetRig = (await json(base, `/api/resources/${rigId}`)).rig;
  const res = await fetch(`${base}/api/resources/${take}/retarget?onto=${rigId}&mode=world&format=glb`);
  if (res.status !== 200) throw new Error(`retarget: ${res.status} ${await res.text()}`);
  const again = await upload(base, 'world.glb', Buffer.from(await res.arrayBuffer()));
  const times = frames.map(String).join(',');
  const ours = await json(base, `/api/resources/${again}/pose?t=${times}`);
  const source = await json(base, `/api/resources/${take}/pose?t=${times}`);
  const sourceBones = bonesOf(takeRig);
  const { mesh, bones } = targetOf(targetRig);
  const place = new Map(ours.nodes.map((n, i) => [n.name, i]));
  let worst = 0, compared = 0, bad = null;
  source.poses.forEach((p, k) => {
    sourceBones.forEach((b, i) => {
      b.position.fromArray(p.translation[i]);
      b.quaternion.fromArray(p.rotation[i]);
      b.scale.fromArray(p.scale[i]);
    });
    sourceBones[0].updateMatrixWorld(true);
    retarget(mesh, sourceBones, { hip: 'Hips', getBoneName: (bone) => bone.name });
    mesh.updateMatrixWorld(true);
    bones.forEach((b) => {
      const n = place.get(b.name);
      if (n === undefined) return; // an end site: a glTF upload's rig is the nodes its tracks move
      const want = new THREE.Quaternion().setFromRotationMatrix(new THREE.Matrix4().extractRotation(b.matrixWorld));
      const got = new THREE.Quaternion().setFromRotationMatrix(new THREE.Matrix4().extractRotation(new THREE.Matrix4().fromArray(ours.poses[k].world[n])));
      const error = Math.min(...[1, -1].map((s) => Math.hypot(got.x - s * want.x, got.y - s * want.y, got.z - s * want.z, got.w - s * want.w)));
      worst = Math.max(worst, error);
      compared++;
      if (error > TOLERANCE && !bad) bad = `${b.name} at t=${frames[k]}: animdex ${got.toArray()}, three.js ${want.toArray()}`;
    });
  });
  check(`mode=world: ${compared} bone world rotations at ${frames.length} frames of CMU 01_01 equal SkeletonUtils.retarget's (largest difference ${worst.toPrecision(3)})`,
    !bad && compared >= 31 * frames.length, bad || `only ${compared} compared`);
}

function median(list) { return [...list].sort((a, b) => a - b)[list.length >> 1]; }

async function timeBoth(base, take, rigId) {
  const daemon = [];
  for (let i = 0; i < 7; i++) {
    const start = process.hrtime.bigint();
    await json(base, `/api/resources/${take}/retarget?onto=${rigId}&summary=1`);
    daemon.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const result = new BVHLoader().parse(readFileSync(TAKE, 'utf8'));
  const { mesh } = targetOf((await json(base, `/api/resources/${rigId}`)).rig);
  const three = [];
  for (let i = 0; i < 3; i++) {
    const start = process.hrtime.bigint();
    retargetClip(mesh, result.skeleton, result.clip, { hip: 'Hips', getBoneName: (bone) => bone.name });
    three.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  console.log(`retarget CMU 01_01 (2,752 frames, 31 joints) onto an A-pose rig: animdex (GET, report and quality)\t${median(daemon).toFixed(1)}\tms (target <= 20)`);
  console.log(`  three.js 0.187 SkeletonUtils.retargetClip, the same clip and rig\t${median(three).toFixed(1)}\tms`);
  console.log(`  three.js / animdex\t${(median(three) / median(daemon)).toFixed(1)}\tx (the issue's target: at least 3)`);
}

// 1,000 takes of 240 frames (01_01's first two seconds, each a little other) uploaded, then all
// retargeted onto the rig in one GET /api/export?retarget=1: the time, and the daemon's peak
// memory over what it held before (its high-water mark reset first).
async function timeMany(base, child, rigId) {
  const text = readFileSync(TAKE, 'utf8');
  const at = text.indexOf('Frame Time:');
  const head = text.slice(0, text.lastIndexOf('Frames:', at));
  const lines = text.slice(at).split('\n').slice(1, 241);
  const ids = [];
  for (let i = 0; i < 1000; i++) {
    const first = lines[0].trim().split(/\s+/);
    first[0] = (Number(first[0]) + i * 1e-3).toFixed(4);
    const take = `${head}Frames: 240\nFrame Time: .0083333\n${[first.join(' '), ...lines.slice(1)].join('\n')}\n`;
    ids.push(await upload(base, `take_${String(i).padStart(4, '0')}.bvh`, Buffer.from(take)));
  }
  const status = () => readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const kib = (field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status())[1]);
  const { writeFileSync } = await import('node:fs');
  try { writeFileSync(`/proc/${child.pid}/clear_refs`, '5'); } catch { /* an older kernel: the peak since start */ }
  const rest = kib('VmRSS');
  const start = process.hrtime.bigint();
  const res = await fetch(`${base}/api/export?ids=${ids.join(',')}&skeleton=${rigId}&retarget=1`);
  const bytes = (await res.arrayBuffer()).byteLength;
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  if (res.status !== 200) throw new Error(`export: ${res.status}`);
  console.log(`retarget 1,000 takes of 240 frames onto one rig (GET /api/export?retarget=1, ${(bytes / 1048576).toFixed(0)} MiB)\t${seconds.toFixed(2)}\ts (target <= 10)`);
  console.log(`  animdexd's peak memory over its rest while it did\t${((kib('VmHWM') - rest) / 1024).toFixed(1)}\tMiB (target <= 64)`);
}

if (!existsSync(TAKE)) {
  console.log(`SKIP: retarget: needs Debian's assimp-testmodels (${TAKE}; the test command installs it)`);
  process.exit(0);
}
const { child, base } = await startDaemon();
try {
  const take = await upload(base, '01_01.bvh', readFileSync(TAKE));
  const rigId = await upload(base, 'a-pose.glb', aPoseRig((await json(base, `/api/resources/${take}`)).rig));
  if (bench) {
    await timeBoth(base, take, rigId);
    await timeMany(base, child, rigId);
  }
  else await compareWorld(base, take, rigId);
} catch (e) {
  check('ran to its end', false, e.stack);
} finally {
  child.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
process.exit(failures ? 1 : 0);
