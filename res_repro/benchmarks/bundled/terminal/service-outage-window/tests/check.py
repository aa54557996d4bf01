"""Compare /app/outage.txt with the known longest api outage."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
want = open(os.path.join(HERE, "expected.txt")).read().split()
path = "/app/outage.txt"
if not os.path.isfile(path):
    print("FAIL: /app/outage.txt is missing")
    sys.exit(1)
got = [l.strip() for l in open(path, encoding="utf-8", errors="replace").read().strip().splitlines()]
if got != want:
    print(f"FAIL: got {got}, want {want}")
    sys.exit(1)
print("OK")
