"""Check that /app/downloads was sorted into the four folders, every file intact."""
import hashlib
import json
import os
import sys

ROOT = "/app/downloads"
FOLDERS = {"images", "documents", "archives", "other"}


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")) as f:
    expected = json.load(f)

if not os.path.isdir(ROOT):
    fail(f"{ROOT} is missing")
top = set(os.listdir(ROOT))
if top != FOLDERS:
    fail(f"{ROOT} should hold exactly {sorted(FOLDERS)}, holds {sorted(top)}")
found = {}
for folder in sorted(FOLDERS):
    path = os.path.join(ROOT, folder)
    if not os.path.isdir(path) or os.path.islink(path):
        fail(f"{path} is not a folder")
    for name in os.listdir(path):
        p = os.path.join(path, name)
        if os.path.islink(p) or not os.path.isfile(p):
            fail(f"{p} is not a regular file")
        with open(p, "rb") as fh:
            found[f"{folder}/{name}"] = hashlib.sha256(fh.read()).hexdigest()

missing = sorted(set(expected) - set(found))
extra = sorted(set(found) - set(expected))
if missing or extra:
    fail(f"misplaced or missing: {missing}; unexpected: {extra}")
changed = sorted(k for k in expected if expected[k] != found[k])
if changed:
    fail(f"contents changed: {changed}")
print("OK")
