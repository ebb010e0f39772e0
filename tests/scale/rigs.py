#!/usr/bin/env python3
"""rigs.py OUT RIGS [SEED]: rigs for the benchmark of "which skeletons fit" at scale
(tests/bench/scale.sh): RIGS animations in files of 1,000, each an entry whose rig is the nodes
it moves. Each rig is one of three naming schemes (CMU motion capture's bones, Mixamo's,
3ds Max Biped's), a tenth of its bones left out at random and up to three bones of its own
added, so that the rigs share most names but hardly two are the same: every lookup of a common
bone finds thousands of rigs, as in a catalogue of a whole game's characters. The same SEED
gives the same files."""
import base64
import json
import random
import struct
import sys

CMU = ("Hips LHipJoint LeftUpLeg LeftLeg LeftFoot LeftToeBase RHipJoint RightUpLeg RightLeg "
       "RightFoot RightToeBase LowerBack Spine Spine1 Neck Neck1 Head LeftShoulder LeftArm "
       "LeftForeArm LeftHand LeftFingerBase LeftHandIndex1 LThumb RightShoulder RightArm "
       "RightForeArm RightHand RightFingerBase RightHandIndex1 RThumb").split()
MIXAMO = ["mixamorig:" + n for n in (
    "Hips Spine Spine1 Spine2 Neck Head HeadTop_End LeftShoulder LeftArm LeftForeArm LeftHand "
    "RightShoulder RightArm RightForeArm RightHand LeftUpLeg LeftLeg LeftFoot LeftToeBase "
    "RightUpLeg RightLeg RightFoot RightToeBase").split()]
BIPED = ["Bip01"] + ["Bip01 " + n for n in (
    "Pelvis Spine Spine1 Neck Head L_Clavicle L_UpperArm L_Forearm L_Hand R_Clavicle "
    "R_UpperArm R_Forearm R_Hand L_Thigh L_Calf L_Foot L_Toe0 R_Thigh R_Calf R_Foot "
    "R_Toe0").split()]
SCHEMES = (CMU, MIXAMO, BIPED)
PER_FILE = 1000


def main():
    out, rigs = sys.argv[1], int(sys.argv[2])
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 11)
    # two keys for every track: times 0 and 1, a rotation held
    data = struct.pack("<2f", 0.0, 1.0) + struct.pack("<8f", 0, 0, 0, 1, 0, 0, 0, 1)
    uri = "data:application/octet-stream;base64," + base64.b64encode(data).decode()
    for f in range((rigs + PER_FILE - 1) // PER_FILE):
        nodes, animations = [], []
        for r in range(f * PER_FILE, min(rigs, (f + 1) * PER_FILE)):
            scheme = rng.choice(SCHEMES)
            names = [n for n in scheme if n == scheme[0] or rng.random() >= 0.1]
            names += ["prop_%d_%d" % (r, k) for k in range(rng.randint(0, 3))]
            first = len(nodes)
            nodes.append({"name": names[0], "children": list(range(first + 1, first + len(names)))})
            nodes += [{"name": n} for n in names[1:]]
            animations.append({"name": "rig_%d" % r, "samplers": [{"input": 0, "output": 1}],
                               "channels": [{"sampler": 0, "target": {"node": first + i, "path": "rotation"}}
                                            for i in range(len(names))]})
        doc = {"asset": {"version": "2.0", "generator": "animdex tests/scale/rigs.py"},
               "nodes": nodes, "scenes": [{"nodes": [k for k, n in enumerate(nodes) if "children" in n]}],
               "buffers": [{"byteLength": len(data), "uri": uri}],
               "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 8},
                               {"buffer": 0, "byteOffset": 8, "byteLength": 32}],
               "accessors": [{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR",
                              "min": [0.0], "max": [1.0]},
                             {"bufferView": 1, "componentType": 5126, "count": 2, "type": "VEC4"}],
               "animations": animations}
        with open("%s/rigs_%03d.gltf" % (out, f), "w", encoding="utf-8") as fh:
            json.dump(doc, fh)


if __name__ == "__main__":
    main()
