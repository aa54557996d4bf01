"""Build a clean copy of /app with make, then compare the stats tool's output with a reference."""
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


if not os.path.isfile("/app/Makefile"):
    fail("/app/Makefile is missing")
work = os.path.join(tempfile.mkdtemp(), "app")
shutil.copytree("/app", work, symlinks=True)
subprocess.run(["make", "clean"], cwd=work, capture_output=True, timeout=20)
for dirpath, _, filenames in os.walk(work):
    for name in filenames:
        if name.endswith(".o") or name.endswith(".a"):
            os.remove(os.path.join(dirpath, name))
if os.path.exists(os.path.join(work, "stats")):
    os.remove(os.path.join(work, "stats"))
build = subprocess.run(["make"], cwd=work, capture_output=True, text=True, timeout=40)
if build.returncode != 0:
    fail("make failed:\n" + build.stdout[-1500:] + build.stderr[-1500:])
prog = os.path.join(work, "stats")
if not os.access(prog, os.X_OK):
    fail("make did not produce an executable ./stats")


def reference(xs):
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    return [("count", n), ("min", min(xs)), ("max", max(xs)), ("mean", mean), ("stddev", sd)]


def check(label, xs, via_file):
    text = " ".join(repr(x) for x in xs)
    text = re.sub(r"(\S+ \S+ \S+) ", r"\1\n", text)
    if via_file:
        path = os.path.join(work, f"in-{label}.txt")
        with open(path, "w") as f:
            f.write(text + "\n")
        p = subprocess.run([prog, path], capture_output=True, text=True, timeout=10)
    else:
        p = subprocess.run([prog], input=text + "\n", capture_output=True, text=True, timeout=10)
    if p.returncode != 0:
        failures.append(f"{label}: exit {p.returncode}: {p.stderr[-200:]}")
        return
    lines = p.stdout.splitlines()
    want = reference(xs)
    if len(lines) != 5:
        failures.append(f"{label}: expected 5 lines, got {p.stdout!r}")
        return
    for line, (key, value) in zip(lines, want):
        if key == "count":
            if line != f"count: {value}":
                failures.append(f"{label}: {line!r}, want 'count: {value}'")
            continue
        m = re.fullmatch(rf"{key}: (-?\d+\.\d{{3}})", line)
        if not m or abs(float(m.group(1)) - value) > 0.0011:
            failures.append(f"{label}: {line!r}, want '{key}: {value:.3f}'")


rnd = random.Random(5)
check("sample", [12.5, 14, 9.75, 11, 13.25], True)
check("positive", [round(rnd.uniform(5, 500), 2) for _ in range(200)], False)
check("negative", [round(rnd.uniform(-90, -1), 3) for _ in range(57)], True)
check("mixed", [round(rnd.gauss(0, 40), 4) for _ in range(1000)], False)
check("single", [42.0], False)
check("two", [3.0, -3.0], True)
p = subprocess.run([prog], input="  \n\n", capture_output=True, text=True, timeout=10)
if p.returncode != 1 or p.stdout != "" or "error: no input" not in p.stderr:
    failures.append(f"empty input: exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr!r}")
clean = subprocess.run(["make", "clean"], cwd=work, capture_output=True, timeout=20)
leftovers = [n for n in ("stats", "src/main.o", "src/stats.o", "src/input.o") if os.path.exists(os.path.join(work, n))]
if clean.returncode != 0 or leftovers:
    failures.append(f"make clean failed or left {leftovers}")

if failures:
    print("FAIL:", *failures, sep="\n  ")
    sys.exit(1)
print("OK")
