// words.js: how the page writes things: counts, sizes, numbers as a person writes them, a
// handle with its name, a bone and a track named one way everywhere, and what an entry is in
// the words of the one who uploaded it.

export const count = (n, one, many) => `${typeof n === 'number' ? n.toLocaleString('en') : n} ${n === 1 ? one : many}`;

export const bytes = (n) => n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KiB` : `${(n / 1048576).toFixed(1)} MiB`;

export const handleText = (entry) => entry.crc32 + (entry.crc32_name ? ` (${entry.crc32_name})` : '');

// What an entry is, in the words of the one who uploaded it: an animation of a glTF file and a
// Radient clip by their source format (the API's class, RadientAnimationClip, names both), the
// games' resources by their class.
export const KIND_OF_FAMILY = { gltf: 'glTF animation', radient: 'Radient clip' };

export const kindOf = (entry) => KIND_OF_FAMILY[entry.family] || entry.class;

// A time the API gives (ISO 8601, UTC) as a person reads it: "2026-12-04 17:33:37 UTC".
export const utc = (at) => `${String(at).replace('T', ' ').slice(0, 19)} UTC`;

// A number as a person writes it: at most `decimals` decimals, never an exponent for a small
// one (7.672157e-9 reads 0) nor a "-0"; the exact one goes on hover.
export const readable = (v, decimals = 4) => {
  if (typeof v !== 'number' || !Number.isFinite(v)) return String(v);
  const rounded = Number(v.toFixed(decimals));
  return String(rounded === 0 ? 0 : rounded);
};

// A file's name made of an entry's words: the characters no file system takes replaced by '_'.
export const fileName = (words, extension) => `${String(words).replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').trim() || 'entry'}.${extension}`;

// A time or a duration as a person writes it: 1.667 s, 12 s, 0.25 s (to the millisecond).
export const seconds = (t) => `${readable(t, 3)} s`;

// A value of a track (a number, or a vector's numbers) as a person writes it: [0.2021, 0.9333, 0].
export const valueText = (v) => (Array.isArray(v) ? `[${v.map((x) => valueText(x)).join(', ')}]` : readable(v));

// A bone (a track's target) named one way everywhere, as the bone list and the view name it: its
// name (a name list's, else the file's), else its handle ("0x1DC6274F", not the decoder's
// "bone 0x1DC6274F").
export const boneName = (target) => target.handle_name
  || (target.handle && target.name === `bone ${target.handle}` ? target.handle : target.name);

// A track in full, where there is room (the tracks table, the key editor): its bone's name
// first, its channel, and the bone's handle after when a name stands for it ("Bip01 Pelvis
// rotation (0xF446BAB9)").
export function trackTitle(t) {
  const target = t.target;
  if (!target || !target.handle || !t.name.startsWith(`${target.name} `)) return t.name;
  const channel = t.name.slice(target.name.length + 1);
  return `${boneName(target)} ${channel}${target.handle_name ? ` (${target.handle})` : ''}`;
}

// Time t as a frame number at `fps` a second, as the page counts in frames: 12, or 12.4 between
// two frames.
export const frameOf = (t, fps) => Number((t * fps).toFixed(2));
