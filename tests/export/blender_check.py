# blender_check.py: run by Blender (blender -b --factory-startup --python blender_check.py --
# FILE.glb EXPECTED.json [FILE.glb EXPECTED.json]...). For each pair, in an empty scene,
# imports the exported asset with Blender's own glTF importer and,
# for every channel EXPECTED.json lists, evaluates the F-curves of the action Blender made
# for that animation and node at the frame of each time (frame = time x fps), and compares
# them with animdex's samples there, within 1e-4, through Blender's Y-up to Z-up conversion:
# location (x, y, z) -> (x, -z, y); rotation (x, y, z, w) -> (w, x, -z, y); scale
# (x, y, z) -> (x, z, y). Blender interpolates quaternion F-curves component by component, so
# rotations are compared after normalising, at keys and half-way between them, where that
# equals animdex's slerp. Blender 3.4's importer gives CUBICSPLINE keys automatic handles and
# drops glTF's tangents, so cubic channels are compared at their keys (the largest difference
# between them is printed). Prints "PASS: blender ..." / "FAIL: blender ..." lines; it also
# checks that Blender made one NLA track (an action per object) for every animation. Where
# EXPECTED.json has "parents" (a rig exported as a node tree), every node must have the same
# parent in Blender (an object's parent, or a bone's), and at each time of "world" every
# node's world position (an object's, or a bone's head) must be animdex's pose through the
# same axis conversion, within 1e-4.
import json
import math
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer still uses numpy.bool, gone from numpy 1.24
import bpy  # noqa: E402

argv = sys.argv[sys.argv.index("--") + 1:]
failures = 0
checked = worst = cubic_worst = 0


def report(ok, what):
    global failures
    print(("PASS" if ok else "FAIL") + ": blender " + what, flush=True)
    failures += 0 if ok else 1


def to_blender(path, v):
    if path == "translation":
        return [v[0], -v[2], v[1]]
    if path == "rotation":
        return [v[3], v[0], -v[2], v[1]]
    return [v[0], v[2], v[1]]


DATA_PATH = {"translation": "location", "rotation": "rotation_quaternion", "scale": "scale"}


def check(glb, expected):
    global checked, worst
    bpy.ops.wm.read_homefile(use_empty=True)
    for action in list(bpy.data.actions):
        bpy.data.actions.remove(action)
    bpy.ops.import_scene.gltf(filepath=glb)
    fps = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    name = glb.split("/")[-1]
    tracks_by_object = {}
    for obj in bpy.data.objects:
        ad = obj.animation_data
        for track in (ad.nla_tracks if ad else []):
            for strip in track.strips:
                tracks_by_object.setdefault(obj.name, {})[track.name] = strip.action
    names = {a["name"] for a in expected["animations"]}
    made = {t for per in tracks_by_object.values() for t in per}
    report(names <= made, f"{name}: an action for each of its {len(names)} animations"
           + (f" (missing: {sorted(names - made)[:5]})" if not names <= made else ""))
    for anim in expected["animations"]:
        for ch in anim["channels"]:
            action = tracks_by_object.get(ch["node"], {}).get(anim["name"])
            if action is None:
                report(False, f"{name}: no action for {anim['name']!r} on node {ch['node']!r}")
                continue
            curves = {f.array_index: f for f in action.fcurves
                      if f.data_path == DATA_PATH[ch["path"]]}
            size = 4 if ch["path"] == "rotation" else 3
            if len(curves) != size:
                report(False, f"{name}: {ch['node']!r} {ch['path']}: {len(curves)} F-curves")
                continue
            bad = None
            cubic = ch.get("interpolation") == "CUBIC_SPLINE"
            for t, value, at_key in ch["samples"]:
                if cubic and not at_key:
                    # Blender 3.4's importer gives CUBICSPLINE keys AUTO_CLAMPED handles and
                    # drops glTF's tangents: only the keys themselves can agree
                    got = [curves[i].evaluate(t * fps) for i in range(size)]
                    want = to_blender(ch["path"], value)
                    global cubic_worst
                    cubic_worst = max(cubic_worst, max(abs(a - b) for a, b in zip(got, want)))
                    continue
                got = [curves[i].evaluate(t * fps) for i in range(size)]
                want = to_blender(ch["path"], value)
                if ch["path"] == "rotation":
                    n = math.sqrt(sum(x * x for x in got)) or 1.0
                    got = [x / n for x in got]
                    if sum(a * b for a, b in zip(got, want)) < 0:
                        got = [-x for x in got]
                error = max(abs(a - b) for a, b in zip(got, want))
                worst = max(worst, error)
                checked += 1
                if error > 1e-4 and bad is None:
                    bad = f"t={t}: Blender {got}, animdex {want}"
            report(bad is None, f"{name}: {ch['node']!r} {ch['path']}: {len(ch['samples'])} "
                   "times" + (f" ({bad})" if bad else ""))


def blender_node(name):
    """(parent name or None, a function giving the world position) of a node Blender made:
    an object, or a bone of an armature."""
    for arm in bpy.data.objects:
        if arm.type == "ARMATURE" and name in arm.pose.bones:
            # a skin's joint: a bone; the armature object is the node above the joints
            bone = arm.pose.bones[name]
            parent = bone.parent.name if bone.parent else arm.name
            return parent, lambda: arm.matrix_world @ bone.head
    obj = bpy.data.objects.get(name)
    if obj is not None:
        parent = obj.parent_bone or (obj.parent.name if obj.parent else None)
        return parent, lambda: obj.matrix_world.translation
    return "(missing)", None


def check_rig(glb, expected):
    global checked, worst
    name = glb.split("/")[-1]
    fps = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    wrong = [(node, parent, blender_node(node)[0])
             for node, parent in expected["parents"].items()
             if blender_node(node)[0] != parent]
    report(not wrong, f"{name}: the parent of each of its {len(expected['parents'])} nodes"
           + (f" (first wrong: {wrong[0]})" if wrong else ""))
    for pose in expected.get("world", []):
        frame = pose["t"] * fps
        bpy.context.scene.frame_set(int(math.floor(frame)), subframe=frame - math.floor(frame))
        bad = None
        for node, position in pose["positions"].items():
            where = blender_node(node)[1]
            if where is None:
                bad = bad or f"{node!r} missing"
                continue
            got = list(where())
            want = to_blender("translation", position)
            error = max(abs(a - b) for a, b in zip(got, want))
            worst = max(worst, error)
            checked += 3
            if error > 1e-4 and bad is None:
                bad = f"{node!r}: Blender {got}, animdex {want}"
        report(bad is None, f"{name}: world positions of {len(pose['positions'])} nodes at "
               f"t={pose['t']}" + (f" ({bad})" if bad else ""))


for glb, expected_path in zip(argv[0::2], argv[1::2]):
    expected = json.load(open(expected_path))
    check(glb, expected)
    if "parents" in expected:
        check_rig(glb, expected)
print(f"blender: {checked} values compared, largest difference {worst:.3g}; between the keys "
      f"of CUBICSPLINE channels, where Blender 3.4 drops the tangents, up to {cubic_worst:.3g}",
      flush=True)
sys.exit(1 if failures else 0)
