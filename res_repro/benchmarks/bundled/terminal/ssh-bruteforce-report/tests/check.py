"""Recompute the brute-force answer from the (unmodified) auth.log and compare with /app/answer.txt."""
import hashlib
import os
import re
import sys
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


with open("/app/auth.log", "rb") as f:
    raw = f.read()
if hashlib.sha256(raw).hexdigest() != open(os.path.join(HERE, "auth.sha256")).read().strip():
    fail("/app/auth.log was modified")
failed = Counter()
accepted = {}
for line in raw.decode().splitlines():
    m = re.search(r"Failed password for (?:invalid user )?\S+ from (\S+) port", line)
    if m:
        failed[m.group(1)] += 1
    m = re.search(r"Accepted \S+ for (\S+) from (\S+) port", line)
    if m:
        accepted.setdefault(m.group(2), m.group(1))
(ip, n), (_, n2) = failed.most_common(2)
assert n > n2, "checker data: the top address must be unique"
want = [ip, str(n), accepted.get(ip, "none")]
assert want == ["198.51.100.23", "131", "backup"], want

path = "/app/answer.txt"
if not os.path.isfile(path):
    fail(f"{path} is missing")
got = [l.strip() for l in open(path, encoding="utf-8", errors="replace").read().strip().splitlines()]
if got != want:
    fail(f"answer {got}, want {want}")
print("OK")
