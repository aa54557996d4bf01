#!/bin/bash
set -euo pipefail
cat > /app/wordfreq.py <<'PY'
#!/usr/bin/env python3
"""Print the most frequent words of a text."""

import argparse
import re
import sys
from collections import Counter

WORD = re.compile(r"[A-Za-z]+")


def positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}")
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1: {value}")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--top", type=positive_int, default=10)
    parser.add_argument("--min-length", type=positive_int, default=1)
    parser.add_argument("files", nargs="*")
    args = parser.parse_args(argv)

    texts = []
    if args.files:
        for name in args.files:
            try:
                with open(name, encoding="utf-8", errors="replace") as fh:
                    texts.append(fh.read())
            except OSError as exc:
                print(f"wordfreq: cannot read {name}: {exc.strerror}", file=sys.stderr)
                return 1
    else:
        texts.append(sys.stdin.read())

    counts = Counter()
    for text in texts:
        counts.update(w.lower() for w in WORD.findall(text) if len(w) >= args.min_length)
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[: args.top]
    sys.stdout.write("".join(f"{n}\t{w}\n" for w, n in ranked))
    return 0


if __name__ == "__main__":
    sys.exit(main())
PY
chmod +x /app/wordfreq.py
