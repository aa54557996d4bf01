"""Build a clean copy of /app, then check librle.a's API and the rle tool against a reference."""
import os
import random
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def reference(data):
    out = bytearray()
    i = 0
    while i < len(data):
        j = i
        while j < len(data) and data[j] == data[i] and j - i < 255:
            j += 1
        out += bytes([j - i, data[i]])
        i = j
    return bytes(out)


if not os.path.isfile("/app/Makefile"):
    fail("/app/Makefile is missing")
work = os.path.join(tempfile.mkdtemp(), "app")
shutil.copytree("/app", work, symlinks=True)
subprocess.run(["make", "clean"], cwd=work, capture_output=True, timeout=20)
for dirpath, _, filenames in os.walk(work):
    for name in filenames:
        if name.endswith((".o", ".a")):
            os.remove(os.path.join(dirpath, name))
for name in ("rle", "tests/test_rle"):
    if os.path.exists(os.path.join(work, name)):
        os.remove(os.path.join(work, name))
build = subprocess.run(["make"], cwd=work, capture_output=True, text=True, timeout=40)
if build.returncode != 0:
    fail("make failed:\n" + build.stdout[-1500:] + build.stderr[-1500:])
for name in ("librle.a", "rle"):
    if not os.path.isfile(os.path.join(work, name)):
        fail(f"make did not produce {name}")

# the library's API, through our own program linked against the built archive
api = subprocess.run(["gcc", "-std=c11", "-I", os.path.join(work, "include"), os.path.join(HERE, "hidden_api.c"),
                      os.path.join(work, "librle.a"), "-o", os.path.join(work, "hidden_api")],
                     capture_output=True, text=True, timeout=30)
if api.returncode != 0:
    fail("linking a program against librle.a failed:\n" + api.stderr[-1500:])
run = subprocess.run([os.path.join(work, "hidden_api")], capture_output=True, text=True, timeout=10)
if run.returncode != 0:
    failures.append("library API checks failed:\n" + run.stderr[-1500:])

# the unit checks shipped with the project (pristine copy)
shutil.copy(os.path.join(HERE, "test_rle.c"), os.path.join(work, "tests", "test_rle.c"))
t = subprocess.run(["make", "test"], cwd=work, capture_output=True, text=True, timeout=40)
if t.returncode != 0:
    failures.append("make test failed:\n" + (t.stdout + t.stderr)[-1500:])

rle = os.path.join(work, "rle")


def cli(args, data):
    return subprocess.run([rle, *args], input=data, capture_output=True, timeout=10)


rnd = random.Random(3)
samples = [
    b"",
    b"a",
    b"aaabcc",
    b"\x00" * 1000,
    b"\x00\x00\x01\x00hello\n\x00",
    bytes(rnd.getrandbits(8) for _ in range(5000)),
    b"".join(bytes([rnd.choice(b"\x00\xffAB")]) * rnd.randint(1, 700) for _ in range(60)),
    open(os.path.join(work, "include", "rle.h"), "rb").read(),
]
for k, data in enumerate(samples):
    e = cli(["encode"], data)
    if e.returncode != 0 or e.stdout != reference(data):
        failures.append(f"encode sample {k} ({len(data)} bytes): exit {e.returncode}, "
                        f"{len(e.stdout)} bytes out, want {len(reference(data))}")
        continue
    d = cli(["decode"], e.stdout)
    if d.returncode != 0 or d.stdout != data:
        failures.append(f"decode sample {k}: exit {d.returncode}, {len(d.stdout)} bytes out, want {len(data)}")
for bad in (b"\x03a\x02", b"\x03a\x00b", b"\x00\x00", b"\x01"):
    d = cli(["decode"], bad)
    if d.returncode != 1 or d.stdout != b"" or not d.stderr:
        failures.append(f"decode of invalid {bad!r}: exit {d.returncode}, stdout {d.stdout!r}")
for args in ([], ["compress"], ["encode", "extra"]):
    u = cli(args, b"abc")
    if u.returncode != 2 or not u.stderr:
        failures.append(f"rle {' '.join(args)!r}: exit {u.returncode}, want 2 with a usage message")

clean = subprocess.run(["make", "clean"], cwd=work, capture_output=True, timeout=20)
left = [n for n in ("rle", "librle.a", "src/encode.o", "src/decode.o", "src/cli.o", "tests/test_rle")
        if os.path.exists(os.path.join(work, n))]
if clean.returncode != 0 or left:
    failures.append(f"make clean failed or left {left}")

if failures:
    print("FAIL:", *failures, sep="\n  ")
    sys.exit(1)
print("OK")
