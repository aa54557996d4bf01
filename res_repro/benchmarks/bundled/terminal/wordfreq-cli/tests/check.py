"""Exercise /app/wordfreq.py against an independent reference on varied inputs."""
import os
import random
import re
import subprocess
import sys
import tempfile
from collections import Counter

PROG = "/app/wordfreq.py"
failures = []


def reference(texts, top=10, min_length=1):
    c = Counter()
    for t in texts:
        for w in re.findall(r"[A-Za-z]+", t):
            if len(w) >= min_length:
                c[w.lower()] += 1
    ranked = sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    return "".join(f"{n}\t{w}\n" for w, n in ranked)


def run(args, stdin=""):
    return subprocess.run([sys.executable, PROG, *args], input=stdin.encode(),
                          capture_output=True, timeout=20)


def expect(label, proc, rc, stdout=None):
    out = proc.stdout.decode("utf-8", "replace")
    if proc.returncode != rc:
        failures.append(f"{label}: exit {proc.returncode}, want {rc}; stderr={proc.stderr[-300:]!r}")
    elif stdout is not None and out != stdout:
        failures.append(f"{label}: stdout {out[:300]!r}, want {stdout[:300]!r}")


if not os.path.isfile(PROG):
    print("FAIL: /app/wordfreq.py is missing")
    sys.exit(1)

rnd = random.Random(11)
vocab = ["alpha", "Beta", "gamma", "delta", "it's", "north-east", "x", "yo", "café", "naïve",
         "THE", "the", "The", "Zeta", "eta", "b2b", "e-mail", "ok", "an", "a"]


def text(n):
    return " ".join(rnd.choice(vocab) + rnd.choice(["", ",", ".", "\n", "!", " ", "--", "42"]) for _ in range(n))


tmp = tempfile.mkdtemp()
files = []
for i in range(3):
    p = os.path.join(tmp, f"in{i}.txt")
    t = text(300 + 50 * i)
    with open(p, "w", encoding="utf-8") as f:
        f.write(t)
    files.append((p, t))
sample = open("/app/sample.txt", encoding="utf-8").read() if os.path.isfile("/app/sample.txt") else text(50)

expect("stdin default", run([], sample), 0, reference([sample]))
expect("one file", run([files[0][0]]), 0, reference([files[0][1]]))
expect("three files top 25", run(["--top", "25", *[p for p, _ in files]]), 0,
       reference([t for _, t in files], top=25))
expect("min-length 3", run(["--min-length", "3", files[1][0]]), 0, reference([files[1][1]], min_length=3))
expect("both options", run(["--top", "4", "--min-length", "4", files[2][0], files[0][0]]), 0,
       reference([files[2][1], files[0][1]], top=4, min_length=4))
expect("top larger than vocabulary", run(["--top", "1000"], "b a c b"), 0, "2\tb\n1\ta\n1\tc\n")
expect("ties alphabetical", run(["--top", "3"], "pear Apple apple PEAR fig kiwi"), 0,
       "2\tapple\n2\tpear\n1\tfig\n")
expect("no words", run([], "123 -- 456 !!\n"), 0, "")
expect("empty input", run([], ""), 0, "")
expect("non-ascii splits", run([], "café naïve"), 0, reference(["café naïve"]))
expect("missing file", run([files[0][0], os.path.join(tmp, "nope.txt")]), 1, "")
expect("top zero", run(["--top", "0"], "a b"), 2, "")
expect("top not a number", run(["--top", "many"], "a b"), 2, "")
expect("negative min-length", run(["--min-length", "-1"], "a b"), 2, "")

if failures:
    print("FAIL:", *failures, sep="\n  ")
    sys.exit(1)
print("OK")
