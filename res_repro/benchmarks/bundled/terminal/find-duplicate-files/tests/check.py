"""Check /app/duplicates.txt against the known duplicate groups, and that /app/photos is untouched."""
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


with open(os.path.join(HERE, "tree.json")) as f:
    tree = json.load(f)
found = {}
for dirpath, _, filenames in os.walk("/app/photos"):
    for name in filenames:
        p = os.path.join(dirpath, name)
        with open(p, "rb") as fh:
            found[os.path.relpath(p, "/app/photos")] = hashlib.sha256(fh.read()).hexdigest()
if found != tree:
    fail("/app/photos was changed")

# recompute the groups from the (verified) tree
groups = {}
for rel, digest in tree.items():
    if os.path.getsize(os.path.join("/app/photos", rel)) > 0:
        groups.setdefault(digest, []).append(rel)
want = sorted(
    ("\t".join(sorted(g, key=lambda s: s.encode())) for g in groups.values() if len(g) > 1),
    key=lambda s: s.encode(),
)
with open(os.path.join(HERE, "expected.txt"), encoding="utf-8") as f:
    assert f.read().splitlines() == want, "checker data out of step"

path = "/app/duplicates.txt"
if not os.path.isfile(path):
    fail(f"{path} is missing")
with open(path, "rb") as f:
    raw = f.read()
try:
    text = raw.decode("utf-8")
except UnicodeDecodeError:
    fail("report is not UTF-8 text")
got = text.split("\n")
if got and got[-1] == "":
    got.pop()
if got != want:
    print("want:", *want, sep="\n  ")
    print("got:", *got, sep="\n  ")
    fail("report differs")
print("OK")
