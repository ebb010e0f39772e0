// view_files.mjs: the glTF files the page's 3D view test (view.test.mjs) uploads, made in
// memory: a tree of three nodes with a mesh and two clips, a rig behind a curtain, a skinned
// triangle.
import { glb as glbOf } from './glb.mjs';

// A glTF tree: "hips" (moved up and down), its child "spine" (turning about z), its child
// "head" (still, carrying a triangle mesh), 2 s long.
export function treeGlb() {
  const q = (a) => [0, 0, Math.sin(a / 2), Math.cos(a / 2)];
  const arrays = [
    [0, 1, 2], [0, 0, 0, 0, 0.5, 0, 0, 0, 0],
    [...q(0), ...q(1.2), ...q(0)],
    [0, 0, 0, 0.3, 0, 0, 0, 0.3, 0],
  ];
  const chunks = arrays.map((a) => Buffer.from(new Float32Array(a).buffer));
  let offset = 0;
  const views = chunks.map((c) => { const v = { buffer: 0, byteOffset: offset, byteLength: c.length }; offset += c.length; return v; });
  const doc = {
    asset: { version: '2.0' }, scene: 0, scenes: [{ nodes: [0] }],
    nodes: [{ name: 'hips', children: [1], translation: [0, 1, 0] }, { name: 'spine', children: [2], translation: [0, 0.6, 0] },
      { name: 'head', translation: [0, 0.6, 0], mesh: 0 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 3 } }] }],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 3, type: 'SCALAR', min: [0], max: [2] },
      { bufferView: 1, componentType: 5126, count: 3, type: 'VEC3' },
      { bufferView: 2, componentType: 5126, count: 3, type: 'VEC4' },
      { bufferView: 3, componentType: 5126, count: 3, type: 'VEC3', min: [0, 0, 0], max: [0.3, 0.3, 0] },
    ],
    bufferViews: views, buffers: [{ byteLength: offset }],
    animations: [{ name: 'sway', samplers: [{ input: 0, output: 1 }, { input: 0, output: 2 }],
      channels: [{ sampler: 0, target: { node: 0, path: 'translation' } }, { sampler: 1, target: { node: 1, path: 'rotation' } }] },
    { name: 'nod', samplers: [{ input: 0, output: 2 }], channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }] }],
  };
  return glbOf(doc, Buffer.concat(chunks));
}

// A rig behind a curtain: "hips" (moved up and down) and its child "spine" (turning), and a 0.8 x 0.8
// quad 0.3 in front of them (towards the camera), 1 s long.
export function curtainGlb() {
  const arrays = [
    [0, 1], [0, 0, 0, 0, 0.2, 0],
    [-0.4, -0.4, 0, 0.4, -0.4, 0, 0.4, 0.4, 0, -0.4, -0.4, 0, 0.4, 0.4, 0, -0.4, 0.4, 0],
    [0, 0, 0, 1, 0, 0, 0.2588, 0.9659],
  ];
  const chunks = arrays.map((a) => Buffer.from(new Float32Array(a).buffer));
  let offset = 0;
  const views = chunks.map((c) => { const v = { buffer: 0, byteOffset: offset, byteLength: c.length }; offset += c.length; return v; });
  return glbOf({
    asset: { version: '2.0' }, scene: 0, scenes: [{ nodes: [0] }],
    nodes: [{ name: 'hips', children: [1, 2] }, { name: 'spine', translation: [0, 0.6, 0] },
      { name: 'curtain', translation: [0, 0.3, 0.3], mesh: 0 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 2 }, material: 0 }] }],
    materials: [{ pbrMetallicRoughness: { baseColorFactor: [0.8, 0.8, 0.8, 1], metallicFactor: 0 } }],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 2, type: 'SCALAR', min: [0], max: [1] },
      { bufferView: 1, componentType: 5126, count: 2, type: 'VEC3' },
      { bufferView: 2, componentType: 5126, count: 6, type: 'VEC3', min: [-0.4, -0.4, 0], max: [0.4, 0.4, 0] },
      { bufferView: 3, componentType: 5126, count: 2, type: 'VEC4' },
    ],
    bufferViews: views, buffers: [{ byteLength: offset }],
    animations: [{ name: 'bob', samplers: [{ input: 0, output: 1 }, { input: 0, output: 3 }],
      channels: [{ sampler: 0, target: { node: 0, path: 'translation' } }, { sampler: 1, target: { node: 1, path: 'rotation' } }] }],
  }, Buffer.concat(chunks));
}

// A skinned triangle: "root" and its child "joint" (1 up, moved 1 along x over 1 s), and a
// triangle bound wholly to "joint" at rest: where the joint goes, the triangle goes.
export function skinnedGlb() {
  const parts = [
    new Float32Array([0, 1]), new Float32Array([0, 1, 0, 1, 1, 0]),
    new Float32Array([-0.5, 1, 0, 0.5, 1, 0, 0, 2, 0]),
    new Uint8Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]), new Float32Array([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]),
    new Float32Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1]),
  ];
  const chunks = parts.map((a) => Buffer.from(a.buffer));
  let offset = 0;
  const views = chunks.map((c) => { const v = { buffer: 0, byteOffset: offset, byteLength: c.length }; offset += c.length; return v; });
  return glbOf({
    asset: { version: '2.0' }, scene: 0, scenes: [{ nodes: [0, 2] }],
    nodes: [{ name: 'root', children: [1] }, { name: 'joint', translation: [0, 1, 0] }, { name: 'skinned', mesh: 0, skin: 0 }],
    skins: [{ joints: [0, 1], inverseBindMatrices: 5 }],
    meshes: [{ primitives: [{ attributes: { POSITION: 2, JOINTS_0: 3, WEIGHTS_0: 4 } }] }],
    accessors: [
      { bufferView: 0, componentType: 5126, count: 2, type: 'SCALAR', min: [0], max: [1] },
      { bufferView: 1, componentType: 5126, count: 2, type: 'VEC3' },
      { bufferView: 2, componentType: 5126, count: 3, type: 'VEC3', min: [-0.5, 1, 0], max: [0.5, 2, 0] },
      { bufferView: 3, componentType: 5121, count: 3, type: 'VEC4' },
      { bufferView: 4, componentType: 5126, count: 3, type: 'VEC4' },
      { bufferView: 5, componentType: 5126, count: 2, type: 'MAT4' },
    ],
    bufferViews: views, buffers: [{ byteLength: offset }],
    animations: [{ name: 'slide', samplers: [{ input: 0, output: 1 }], channels: [{ sampler: 0, target: { node: 1, path: 'translation' } }] }],
  }, Buffer.concat(chunks));
}
