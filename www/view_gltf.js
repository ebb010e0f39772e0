// view_gltf.js: a glTF file's JSON and its binary chunk (a .glb's; null for a .gltf), and
// the file made again from them (the 3D view's mesh, loaded beside the entry's rig).
export function splitGltf(bytes) {
  const data = new DataView(bytes);
  const text = (from, length) => new TextDecoder().decode(new Uint8Array(bytes, from, length));
  if (bytes.byteLength < 20 || data.getUint32(0, true) !== 0x46546c67) return { doc: JSON.parse(text(0, bytes.byteLength)), bin: null };
  const jsonLength = data.getUint32(12, true), next = 20 + jsonLength;
  const bin = next + 8 <= bytes.byteLength ? bytes.slice(next + 8, next + 8 + data.getUint32(next, true)) : null;
  return { doc: JSON.parse(text(20, jsonLength)), bin };
}

export function joinGltf(doc, bin) {
  const json = new TextEncoder().encode(JSON.stringify(doc));
  if (!bin) return json.buffer;
  const pad = (n) => (4 - (n % 4)) % 4;
  const jsonLength = json.length + pad(json.length), binLength = bin.byteLength + pad(bin.byteLength);
  const out = new Uint8Array(12 + 8 + jsonLength + 8 + binLength);
  const data = new DataView(out.buffer);
  data.setUint32(0, 0x46546c67, true); // "glTF"
  data.setUint32(4, 2, true);
  data.setUint32(8, out.length, true);
  data.setUint32(12, jsonLength, true);
  data.setUint32(16, 0x4e4f534a, true); // "JSON"
  out.set(json, 20);
  out.fill(0x20, 20 + json.length, 20 + jsonLength);
  data.setUint32(20 + jsonLength, binLength, true);
  data.setUint32(24 + jsonLength, 0x004e4942, true); // "BIN"
  out.set(new Uint8Array(bin), 28 + jsonLength);
  return out.buffer;
}
