#!/usr/bin/env python3
"""check.py BASE REFERENCE [QUERIES] [SEED]: the list of a large catalogue, checked against a
reference computed here by sorting in memory (tests/scripts/scale.sh).

BASE is the daemon's address (http://127.0.0.1:PORT). REFERENCE says where the entries are
read from without the daemon: "sqlite:PATH" (Python's sqlite3, read only) or "postgresql:
CONNINFO" (psql). Checked, each failure printed with what differs:
- every order the list offers, both directions, paged by cursor to the end (limit 500), and
  pages from random depths reached by cursor: the ids in the reference's order, ties by id;
- totals: exact for no filter and a class, exact or marked otherwise for the rest;
- class, family, crc32, name, filename filters against the reference;
- QUERIES random searches (default 1000): substrings of names of 1 to 10 characters, with
  %, _, a quote and non-ASCII letters among them, and ones matching nothing; each the same
  matches as LIKE (ASCII letters case-folded) in id order and in another order.
Prints "ok N checks" or the failures, and exits 1 on any."""
import bisect
import json
import random
import subprocess
import sys
import urllib.parse
import urllib.request

SORTS = ["id", "class", "name", "family", "crc32", "track_count", "duration", "size",
         "uploaded_at"]
FOLD = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
COLUMNS = ("id, class, family, name, crc32, track_count, duration, size, uploaded_at, "
           "filename, note")


def fold(text):
    """Case-folded as the catalogue folds: ASCII letters only."""
    return (text or "").translate(FOLD)


def load(reference):
    kind, _, where = reference.partition(":")
    if kind == "sqlite":
        import sqlite3
        db = sqlite3.connect("file:%s?mode=ro" % where, uri=True)
        rows = db.execute("SELECT " + COLUMNS + " FROM resources").fetchall()
        db.close()
    else:
        out = subprocess.run(["psql", where, "-At", "-c",
                              "COPY (SELECT " + COLUMNS + " FROM resources) TO STDOUT "
                              "WITH (FORMAT csv)"], check=True, capture_output=True).stdout
        import csv
        import io
        rows = []
        for r in csv.reader(io.StringIO(out.decode("utf-8")), strict=True):
            rows.append((int(r[0]), r[1], r[2], r[3] if r[3] != "" else None, int(r[4]),
                         int(r[5]), float(r[6]) if r[6] != "" else None, int(r[7]),
                         r[8], r[9] if r[9] != "" else None, r[10] if r[10] != "" else None))
    entries = []
    for r in rows:
        entries.append({"id": r[0], "class": r[1], "family": r[2], "name": r[3], "crc32": r[4],
                        "track_count": r[5], "duration": r[6], "size": r[7],
                        "uploaded_at": int(r[8]), "filename": r[9], "note": r[10]})
    return entries


def key_of(sort):
    if sort == "name":
        return lambda e: fold(e["name"])
    if sort == "duration":
        return lambda e: -1.0 if e["duration"] is None else e["duration"]
    return lambda e: e[sort]


def ordered(entries, sort, ascending):
    key = key_of(sort)
    if sort == "id":
        return sorted(entries, key=lambda e: e["id"], reverse=not ascending)
    # text keys sort by their UTF-8 bytes, as both databases compare them
    if sort in ("name", "class", "family"):
        return sorted(entries, key=lambda e: (key(e).encode("utf-8"), e["id"]),
                      reverse=not ascending)
    return sorted(entries, key=lambda e: (key(e), e["id"]), reverse=not ascending)


class Checker:
    def __init__(self, base):
        self.base = base
        self.checks = 0
        self.failures = []

    def get(self, **params):
        url = self.base + "/api/resources?" + urllib.parse.urlencode(params)
        with urllib.request.urlopen(url, timeout=120) as r:
            return json.load(r), url

    def fail(self, what):
        self.failures.append(what)
        print("FAIL: " + what, flush=True)

    def expect(self, cond, what):
        self.checks += 1
        if not cond:
            self.fail(what)
        return cond

    def crawl(self, want, params, limit=500, most=None):
        """Pages to the end by cursor; their ids against want's."""
        got, cursor, pages = [], None, 0
        while True:
            p = dict(params, limit=limit)
            if cursor:
                p["cursor"] = cursor
            page, url = self.get(**p)
            if "resources" not in page:
                return self.fail("%s: %s" % (url, page))
            got.extend(e["id"] for e in page["resources"])
            cursor = page.get("next_cursor")
            pages += 1
            if not cursor or (most and len(got) >= most):
                break
        ids = [e["id"] for e in want]
        if most:
            ids = ids[:len(got)]
        if got != ids:
            at = next((i for i, (a, b) in enumerate(zip(got, ids)) if a != b),
                      min(len(got), len(ids)))
            return self.expect(False, "%s: %d ids, want %d; first difference at %d: %s, "
                               "want %s" % (params, len(got), len(ids), at, got[at:at + 3],
                                            ids[at:at + 3]))
        return self.expect(True, "")

    def total(self, page, want, params):
        exact = page.get("total_exact")
        if exact:
            self.expect(page["total"] == want, "%s: total %s, want %d" %
                        (params, page["total"], want))
        else:
            self.expect(exact is False and 0 <= page["total"] <= want and
                        want > 500, "%s: total %s (exact %s), %d match" %
                        (params, page["total"], exact, want))


def searches(entries, rng, count):
    names = [e["name"] for e in entries if e["name"]]
    odd = ["%", "_", "'", "\"", "é", "É", "ß", "Ж", "100%", "a_b", "it's", "x\"y", "\\", "%_"]
    out = []
    for i in range(count):
        pick = i % 10
        if pick < 6:  # a substring of a name, 3 to 10 characters
            n = rng.choice(names)
            length = rng.randint(3, 10)
            at = rng.randint(0, max(0, len(n) - length))
            q = n[at:at + length]
            if rng.random() < 0.3:
                q = q.upper()
        elif pick < 8:  # 1 or 2 characters
            n = rng.choice(names)
            at = rng.randrange(len(n))
            q = n[at:at + rng.randint(1, 2)]
        elif pick == 8:
            q = rng.choice(odd)
        else:  # nothing matches
            q = "".join(rng.choice("qzxj") for _ in range(rng.randint(3, 9))) + "Q~"
        out.append(q)
    return out


def main():
    base, reference = sys.argv[1], sys.argv[2]
    queries = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 11)
    entries = load(reference)
    c = Checker(base)
    print("checking %d entries" % len(entries), flush=True)

    for sort in SORTS:
        for ascending in (True, False):
            params = {"sort": sort, "order": "asc" if ascending else "desc"}
            want = ordered(entries, sort, ascending)
            first, _ = c.get(limit=5, **params)
            c.total(first, len(entries), params)
            c.crawl(want, params)
            # pages from random depths: a cursor taken from the page before
            for _ in range(3):
                depth = rng.randrange(1, max(2, len(want) - 1))
                page, _ = c.get(limit=depth if depth <= 500 else 500, **params)
                cursor, seen = page.get("next_cursor"), len(page["resources"])
                while cursor and seen + 500 <= depth:
                    page, _ = c.get(limit=500, cursor=cursor, **params)
                    cursor, seen = page.get("next_cursor"), seen + len(page["resources"])
                if cursor:
                    page, _ = c.get(limit=37, cursor=cursor, **params)
                    c.expect([e["id"] for e in page["resources"]] ==
                             [e["id"] for e in want[seen:seen + 37]],
                             "%s: the page after %d rows" % (params, seen))
        print("  sort=%s: done" % sort, flush=True)

    classes = {}
    for e in entries:
        classes.setdefault((e["class"], e["family"]), 0)
        classes[(e["class"], e["family"])] += 1
    with urllib.request.urlopen(base + "/api/classes") as r:
        listed = {(x["class"], x["family"]): x["count"] for x in json.load(r)["classes"]}
    c.expect(listed == classes, "/api/classes: %s, want %s" % (listed, classes))
    for (cls, fam), n in classes.items():
        for params in ({"class": cls}, {"family": fam}, {"class": cls, "sort": "size"}):
            want = [e for e in entries if e["class"] == cls] if "class" in params else \
                [e for e in entries if e["family"] == fam]
            page, _ = c.get(limit=50, **params)
            c.total(page, len(want), params)
            c.crawl(ordered(want, params.get("sort", "id"), "sort" in params), params,
                    most=2000)

    for e in rng.sample(entries, 30):
        for params, want in (
                ({"crc32": str(e["crc32"])}, [x for x in entries if x["crc32"] == e["crc32"]]),
                ({"name": e["name"] or ""}, [x for x in entries if e["name"] and
                                             fold(x["name"]) == fold(e["name"])]),
                ({"filename": e["filename"] or ""},
                 [x for x in entries if e["filename"] and x["filename"] == e["filename"]])):
            if not list(params.values())[0]:
                continue
            page, _ = c.get(limit=50, **params)
            c.total(page, len(want), params)
            c.crawl(ordered(want, "id", False), params, most=2000)

    # every entry's four fields, folded, in one text: a query's matches are found by str.find
    # (no query holds the separators), each occurrence mapped back to its entry
    starts, texts, at = [], [], 0
    for e in entries:
        t = "\x01".join(fold(e[k]) for k in ("name", "class", "filename", "note"))
        starts.append(at)
        texts.append(t)
        at += len(t) + 1
    text = "\x00".join(texts)
    for i, q in enumerate(searches(entries, rng, queries)):
        f = fold(q)
        hit, pos = set(), text.find(f)
        while pos >= 0:
            n = bisect.bisect_right(starts, pos) - 1
            hit.add(n)
            pos = text.find(f, starts[n] + len(texts[n]) + 1)
        match = [entries[n] for n in hit]
        sort = "id" if i % 3 else rng.choice(SORTS[1:])
        params = {"q": q, "sort": sort}
        page, url = c.get(limit=50, **params)
        if "resources" not in page:
            c.fail("%s: %s" % (url, page))
            continue
        c.total(page, len(match), params)
        want = ordered(match, sort, sort != "id")
        c.crawl(want, params, limit=200 if len(match) <= 2000 else 500,
                most=None if len(match) <= 2000 else 1000)
        if i % 100 == 99:
            print("  %d searches done" % (i + 1), flush=True)

    if c.failures:
        print("%d of %d checks failed" % (len(c.failures), c.checks))
        sys.exit(1)
    print("ok %d checks" % c.checks)


if __name__ == "__main__":
    main()
