#!/usr/bin/env python3
"""generate.py OUT FILES CLIPS [SEED]: a catalogue's worth of small glTF files for the
large-catalogue test and benchmark (tests/scripts/scale.sh, tests/bench/scale.sh).

FILES files of CLIPS animations each, every animation an entry. Names are one to three words,
sometimes with a word of non-ASCII letters, a percent sign, an underscore or a quote, then a
number, so that names repeat (several versions of a handle) and searches of any length match
few or many. Durations, track counts and file sizes vary, so that every sort has ties and
spread. The same SEED gives the same files."""
import base64
import json
import random
import struct
import sys

WORDS = ("walk run idle jump attack crouch turn left right fast slow loop start end hit die "
         "taunt climb swim fly").split()
ODD = ["café", "Straße", "Жук", "100%", "a_b", "it's", "ÉTÉ", "naïve", "Ünder", "x\"y"]
DURATIONS = [k / 24 for k in range(1, 9)] + [k / 30 for k in range(1, 9)]


def main():
    out, files, clips = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 7)
    # one times accessor per duration, one values accessor shared
    data = b"".join(struct.pack("<2f", 0.0, d) for d in DURATIONS)
    values_at = len(data)
    data += struct.pack("<6f", 0, 0, 0, 1, 2, 3)
    views = [{"buffer": 0, "byteOffset": 8 * i, "byteLength": 8} for i in range(len(DURATIONS))]
    views.append({"buffer": 0, "byteOffset": values_at, "byteLength": 24})
    accessors = [{"bufferView": i, "componentType": 5126, "count": 2, "type": "SCALAR",
                  "min": [0.0], "max": [d]} for i, d in enumerate(DURATIONS)]
    accessors.append({"bufferView": len(DURATIONS), "componentType": 5126, "count": 2,
                      "type": "VEC3"})
    uri = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
    for f in range(files):
        animations = []
        for _ in range(clips):
            words = [rng.choice(WORDS) for _ in range(rng.randint(1, 3))]
            if rng.random() < 0.05:
                words.insert(rng.randint(0, len(words)), rng.choice(ODD))
            if rng.random() < 0.3:
                words[0] = words[0].capitalize()
            name = "_".join(words) + "_%d" % rng.randint(0, 20000)
            tracks = rng.randint(1, 3)
            samplers = [{"input": rng.randrange(len(DURATIONS)), "output": len(DURATIONS)}
                        for _ in range(tracks)]
            channels = [{"sampler": i, "target": {"node": i, "path": "translation"}}
                        for i in range(tracks)]
            animations.append({"name": name, "samplers": samplers, "channels": channels})
        doc = {"asset": {"version": "2.0", "generator": "animdex tests/scale" + " " * (f % 97)},
               "nodes": [{"name": "root", "children": [1, 2]}, {"name": "a"}, {"name": "b"}],
               "scenes": [{"nodes": [0]}],
               "buffers": [{"byteLength": len(data), "uri": uri}], "bufferViews": views,
               "accessors": accessors, "animations": animations}
        with open("%s/pack_%05d.gltf" % (out, f), "w", encoding="utf-8") as fh:
            json.dump(doc, fh, ensure_ascii=False)


if __name__ == "__main__":
    main()
