"""Compare /app/trace.log with the known lines of request r-8c41f2, in time order."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


with open(os.path.join(HERE, "expected.txt"), encoding="utf-8") as f:
    want = f.read().splitlines()
path = "/app/trace.log"
if not os.path.isfile(path):
    fail(f"{path} is missing")
with open(path, encoding="utf-8", errors="replace") as f:
    text = f.read()
got = text.split("\n")
if got and got[-1] == "":
    got.pop()
got = [g.rstrip("\r") for g in got]
if got != want:
    print("want:", *want, sep="\n  ")
    print("got:", *got[:40], sep="\n  ")
    fail("trace differs")
print("OK")
