// view_camera.js: where the 3D view looks (view3d.js): the camera framed on what is shown or on
// the chosen joint, the grid under it, both as a link keeps them; the box a skinned mesh
// covers as its bones move it; the sky a metallic mesh reflects. Methods of MotionView, mixed
// into its prototype, and the scene's helpers.
import * as THREE from '/vendor/three/build/three.module.js';
import { NODE_FLOATS } from '/view_frames.js';

const $ = (selector) => document.querySelector(selector);

// The box of a glTF scene's meshes as they are drawn: a skinned mesh's vertices moved by its
// bones as the GPU moves them (bindMatrix, the bones' matrices, bindMatrixInverse), another
// mesh's by its world matrix. At most about 20,000 vertices a mesh are read.
function meshBox(root) {
  const box = new THREE.Box3(), v = new THREE.Vector3();
  const bound = new THREE.Vector4(), moved = new THREE.Vector4(), sum = new THREE.Vector4();
  const bone = new THREE.Matrix4(), toWorld = new THREE.Matrix4();
  root.updateMatrixWorld(true);
  root.traverse((o) => {
    if (!o.isMesh || !o.visible || !o.geometry.attributes || !o.geometry.attributes.position) return;
    const position = o.geometry.attributes.position;
    const stride = Math.max(1, Math.floor(position.count / 20000));
    const skinned = o.isSkinnedMesh && o.geometry.attributes.skinIndex && o.geometry.attributes.skinWeight;
    if (skinned) {
      o.skeleton.update();
      toWorld.multiplyMatrices(o.matrixWorld, o.bindMatrixInverse);
    }
    for (let i = 0; i < position.count; i += stride) {
      v.fromBufferAttribute(position, i);
      if (skinned) {
        bound.set(v.x, v.y, v.z, 1).applyMatrix4(o.bindMatrix);
        sum.set(0, 0, 0, 0);
        const index = o.geometry.attributes.skinIndex, weight = o.geometry.attributes.skinWeight;
        for (const c of ['X', 'Y', 'Z', 'W']) {
          const k = weight[`get${c}`](i);
          if (!k) continue;
          bone.fromArray(o.skeleton.boneMatrices, index[`get${c}`](i) * 16);
          sum.addScaledVector(moved.copy(bound).applyMatrix4(bone), k);
        }
        if (!(sum.w > 0)) continue; // no weight: the GPU would draw it at the origin
        // w is the weights' sum (the bones are affine): divided by it, weights stored as
        // normalized integers count as fractions, as the GPU reads them
        v.set(sum.x / sum.w, sum.y / sum.w, sum.z / sum.w).applyMatrix4(toWorld);
      } else v.applyMatrix4(o.matrixWorld);
      if (Number.isFinite(v.x + v.y + v.z)) box.expandByPoint(v);
    }
  });
  return box;
}

// A soft sky over a grey ground as a cube map: what a metallic material (glTF's default is fully
// metallic) reflects, so that a mesh without an environment of its own is not drawn black.
export function skyCube() {
  const face = (top, bottom) => {
    const c = document.createElement('canvas');
    c.width = c.height = 64;
    const g = c.getContext('2d'), fill = g.createLinearGradient(0, 0, 0, 64);
    fill.addColorStop(0, top);
    fill.addColorStop(1, bottom);
    g.fillStyle = fill;
    g.fillRect(0, 0, 64, 64);
    return c;
  };
  const side = face('#e8eef5', '#7a8189');
  const cube = new THREE.CubeTexture([side, side, face('#f4f7fb', '#e8eef5'), face('#7a8189', '#6b7178'), side, side]);
  cube.needsUpdate = true;
  return cube;
}

export function webglAvailable() {
  try {
    const canvas = document.createElement('canvas');
    return !!(canvas.getContext('webgl2') || canvas.getContext('webgl'));
  } catch (e) {
    return false;
  }
}

export const framing = {
  // The camera on the chosen joint (its distance kept), or on everything without one.
  frameSelection() {
    if (this.selected < 0 || !this.shown) { this.frameAll(); this.hooks.onChange(); return; }
    const w = this.selected * NODE_FLOATS + 10, v = this.shown.values;
    const joint = new THREE.Vector3(v[w + 12], v[w + 13], v[w + 14]);
    const offset = this.camera.position.clone().sub(this.controls.target);
    this.controls.target.copy(joint);
    this.camera.position.copy(joint).add(offset);
    this.controls.update();
    this.render();
    this.hooks.onChange();
  },

  // What is shown, as a box: the joints and bones when the skeleton shows, the mesh as the pose
  // moves it when the mesh shows; null before anything is drawn.
  shownBox() {
    if (!this.extent) return null;
    const box = new THREE.Box3();
    if (this.skeleton.visible) box.union(this.extent.box);
    if (this.mesh && this.mesh.root.visible) box.union(meshBox(this.mesh.root));
    return box.isEmpty() ? this.extent.box.clone() : box;
  },

  // The camera on what is shown (mesh, skeleton or both), the grid under it.
  frameAll() {
    const box = this.shownBox();
    if (!box) return;
    const center = box.getCenter(new THREE.Vector3());
    const size = Math.max(box.getSize(new THREE.Vector3()).length(), 1e-3);
    $('#view').dataset.framed = [...box.min.toArray(), ...box.max.toArray()].map((x) => Number(x.toPrecision(6))).join(',');
    const direction = this.camera.position.clone().sub(this.controls.target);
    if (direction.lengthSq() === 0) direction.set(1, 1, 2);
    direction.normalize().multiplyScalar(size * 1.4 + 0.01);
    this.controls.target.copy(center);
    this.camera.position.copy(center).add(direction);
    this.camera.near = size / 1000 + 1e-5;
    this.camera.far = size * 100 + 10;
    this.camera.updateProjectionMatrix();
    this.fitGrid(box);
    this.controls.update();
    this.render();
  },

  // The grid under what is shown: twice its size, at its feet.
  fitGrid(box = this.shownBox()) {
    if (!box) return;
    const center = box.getCenter(new THREE.Vector3());
    this.placeGrid(Math.max(box.getSize(new THREE.Vector3()).length(), 1e-3) * 2, center.x, box.min.y, center.z);
  },

  placeGrid(size, x, y, z) {
    if (this.grid) this.scene.remove(this.grid);
    this.grid = new THREE.GridHelper(size, 10, 0x8c959f, 0xd0d7de);
    this.grid.position.set(x, y, z);
    this.gridSize = size;
    this.scene.add(this.grid);
    $('#view').dataset.grid = this.gridText();
  },

  // The grid as a link keeps it: its size and its centre.
  gridText() {
    const p = this.grid.position;
    return [this.gridSize, p.x, p.y, p.z].map((v) => Number(v.toPrecision(6))).join(',');
  },

  setGrid(text) {
    const v = String(text ?? '').split(',').map(Number);
    if (v.length !== 4 || v.some((x) => !Number.isFinite(x)) || !(v[0] > 0)) { this.fitGrid(); return; }
    this.placeGrid(v[0], v[1], v[2], v[3]);
    this.render();
  },

  cameraText() {
    const p = this.camera.position, t = this.controls.target;
    return [p.x, p.y, p.z, t.x, t.y, t.z].map((v) => Number(v.toPrecision(6))).join(',');
  },

  setCamera(text) {
    const v = String(text).split(',').map(Number);
    if (v.length !== 6 || v.some((x) => !Number.isFinite(x))) { this.frameAll(); return; }
    this.camera.position.set(v[0], v[1], v[2]);
    this.controls.target.set(v[3], v[4], v[5]);
    this.controls.update();
    this.render();
  },
};
