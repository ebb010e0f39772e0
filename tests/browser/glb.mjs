// glb.mjs: a glTF document and its buffer's bytes as one .glb (the binary container: a 12-byte
// header, the JSON chunk padded with spaces, the BIN chunk), for the browser tests and the page
// benchmark.
export function glb(doc, body) {
  let json = Buffer.from(JSON.stringify(doc));
  json = Buffer.concat([json, Buffer.alloc((4 - (json.length % 4)) % 4, 0x20)]);
  const chunk = (type, data) => { const h = Buffer.alloc(8); h.writeUInt32LE(data.length, 0); h.writeUInt32LE(type, 4); return Buffer.concat([h, data]); };
  const header = Buffer.alloc(12);
  header.write('glTF', 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(12 + 8 + json.length + 8 + body.length, 8);
  return Buffer.concat([header, chunk(0x4E4F534A, json), chunk(0x004E4942, body)]);
}
