"""Check the permission bits under /app/tools and that no file changed."""
import hashlib
import json
import os
import stat
import sys

ROOT = "/app/tools"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected.json")) as f:
    expected = json.load(f)

found = {}
for dirpath, dirnames, filenames in os.walk("/app/tools"):
    for name in filenames:
        p = os.path.join(dirpath, name)
        found[os.path.relpath(p, "/app")] = p
if set(found) != set(expected):
    fail(f"file set changed: missing {sorted(set(expected) - set(found))}, extra {sorted(set(found) - set(expected))}")

private = os.path.join(ROOT, "private")
mode = stat.S_IMODE(os.lstat(private).st_mode)
if mode != 0o700:
    fail(f"{private} has mode {oct(mode)}, want 0o700")
for rel, want in sorted(expected.items()):
    p = found[rel]
    st = os.lstat(p)
    if not stat.S_ISREG(st.st_mode):
        fail(f"{p} is not a regular file")
    if oct(stat.S_IMODE(st.st_mode)) != want["mode"]:
        fail(f"{p} has mode {oct(stat.S_IMODE(st.st_mode))}, want {want['mode']}")
    with open(p, "rb") as fh:
        if hashlib.sha256(fh.read()).hexdigest() != want["sha256"]:
            fail(f"{p} content changed")
print("OK")
