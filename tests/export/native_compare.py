# native_compare.py BASE ORIGINAL DENSE BACK TOLERANCE REPORT.json: the checks of the Blender
# round trip (tests/scripts/blender_native.sh), against a daemon at BASE. ORIGINAL is the game's
# Animation_Z, DENSE what Blender exported from animdex's export of it (every frame sampled),
# BACK the game file native?template=ORIGINAL&reduce=TOLERANCE wrote from DENSE, uploaded
# again; REPORT is that answer's summary. Each value track is sampled at 1,000 times over the
# animation by the API: BACK must stay within TOLERANCE plus its class's quantisation of
# Blender's curve (what reduce= promises) and of the original curve, give or take what Blender
# itself moved it (printed); reduce must have removed keys; the message track Blender cannot
# carry comes back from the template unchanged. Prints "PASS: ..." / "FAIL: ...".
import json
import math
import sys
import urllib.request

base, original, dense, back = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
tolerance = float(sys.argv[5])
with open(sys.argv[6]) as f:
    report = json.load(f)
failures = 0


def check(ok, what):
    global failures
    print(("PASS" if ok else "FAIL") + ": blender native: " + what, flush=True)
    failures += 0 if ok else 1


def get(path):
    with urllib.request.urlopen(base + path) as answer:
        return json.load(answer)


def handle_of(track):
    """The bone's handle, a number: the target's, or the "0x..." Blender kept in the node's name."""
    target = track["target"]
    text = target.get("handle") or target.get("name") or ""
    at = text.find("0x")
    return int(text[at + 2:at + 10], 16) if at >= 0 else None


def tracks(entry):
    return {(handle_of(t), t["target"]["schema"], t["property"]): (n, t)
            for n, t in enumerate(get(f"/api/resources/{entry}")["tracks"])}


def keys(entry, n):
    answer = get(f"/api/resources/{entry}/tracks/{n}/keys")
    return {k: v for k, v in answer.items() if k not in ("resource", "track")}


def samples(entry, n, duration):
    return get(f"/api/resources/{entry}/tracks/{n}/sample?from=0&to={duration}&count=1000")


def distance(a, b, quaternion):
    if quaternion:  # the rotation angle between them: 4 atan2(|a - b|, |a + b|), unit, same side
        a = [x / math.sqrt(sum(y * y for y in a)) for x in a]
        b = [x / math.sqrt(sum(y * y for y in b)) for x in b]
        if sum(x * y for x, y in zip(a, b)) < 0:
            b = [-x for x in b]
        return 4 * math.atan2(math.dist(a, b), math.hypot(*(x + y for x, y in zip(a, b))))
    return max(abs(x - y) for x, y in zip(a, b))


def worst(sa, sb):
    quaternion = sa["semantic"] == "NORMALIZED_QUATERNION"
    return max(distance(a, b, quaternion) for a, b in zip(sa["values"], sb["values"]))


duration = get(f"/api/resources/{original}")["duration"]
ours, blenders, backs = tracks(original), tracks(dense), tracks(back)
rows = {row["track"]: row for row in report["tracks"]}
value_tracks = 0
for key, (n, track) in sorted(ours.items(), key=lambda kv: kv[1][0]):
    name = track["name"]
    if track["type"] not in ("FLOAT", "FLOAT2", "FLOAT3", "FLOAT4"):
        # messages: Blender drops them, the template gives them back
        kept = name in report["kept_from_template"]
        same = key in backs and keys(original, n) == keys(back, backs[key][0])
        check(kept and same, f"{name}: not in Blender's file, kept from the template ({'same keys' if same else 'keys differ'})")
        continue
    value_tracks += 1
    if key not in blenders or key not in backs:
        check(False, f"{name}: missing from {'Blender' if key not in blenders else 'the game'}'s file")
        continue
    row = next((r for t, r in rows.items() if handle_of({"target": {"name": t}}) == key[0]
                and t.endswith(" " + name.split(" ")[-1])), None)
    if row is None or "reduced" not in row:
        check(False, f"{name}: no reduce row in the report")
        continue
    reduced = row["reduced"]
    dense_keys = blenders[key][1]["key_count"]
    check(reduced["keys_before"] == dense_keys and reduced["keys_after"] < dense_keys
          and backs[key][1]["key_count"] == reduced["keys_after"],
          f"{name}: Blender's {dense_keys} keys reduced to {reduced['keys_after']} "
          f"(the original has {track['key_count']})")
    so = samples(original, n, duration)
    sd = samples(dense, blenders[key][0], duration)
    sb = samples(back, backs[key][0], duration)
    step = row.get("quantisation", 0)
    blender_moved = worst(so, sd)
    from_blender = worst(sd, sb)
    from_original = worst(so, sb)
    allowed = tolerance + step + 1e-6
    check(from_blender <= allowed and reduced["largest_error"] <= tolerance,
          f"{name}: the game file at 1,000 times is {from_blender:.6f} from Blender's curve "
          f"(tolerance {tolerance} + step {step:.6f}; reduce measured {reduced['largest_error']:.6f})")
    check(from_original <= allowed + blender_moved,
          f"{name}: and {from_original:.6f} from the original curve (Blender itself moved it "
          f"{blender_moved:.6f})")
check(value_tracks >= 4, f"{value_tracks} value tracks compared")
sys.exit(1 if failures else 0)
