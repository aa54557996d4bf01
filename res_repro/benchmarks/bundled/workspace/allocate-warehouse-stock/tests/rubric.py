"""Rubric items for a Workspace-style verifier.

Each item is a function returning True or False; it runs on its own, so an exception (a missing or
malformed deliverable) fails only that item. ``run()`` writes every item to the rubric file.
"""

import csv
import io
import json
import os
import sys

RUBRIC_PATH = "/logs/verifier/rubric.json"
APP = "/app"
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")


class Rubric:
    def __init__(self):
        self.items = []

    def item(self, name):
        def register(fn):
            self.items.append((name, fn))
            return fn
        return register

    def run(self):
        if "--list" in sys.argv:
            for name, _ in self.items:
                print(name)
            return
        results = []
        for name, fn in self.items:
            try:
                ok = fn() is True
            except Exception as exc:  # a missing or malformed deliverable fails this item only
                ok = False
                print(f"  {name}: {type(exc).__name__}: {exc}")
            print(f"{'PASS' if ok else 'FAIL'} {name}")
            results.append({"name": name, "passed": ok})
        os.makedirs(os.path.dirname(RUBRIC_PATH), exist_ok=True)
        tmp = RUBRIC_PATH + ".tmp"
        with open(tmp, "w") as f:
            json.dump({"items": results}, f, indent=1)
        os.replace(tmp, RUBRIC_PATH)


def app(path):
    return os.path.join(APP, path)


def fixture(path):
    return os.path.join(FIXTURES, path)


def read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def read_csv(path):
    """Rows of a CSV file as dicts (header from the first line)."""
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def read_csv_rows(path):
    """Rows of a CSV file as lists, blank lines dropped."""
    with open(path, newline="", encoding="utf-8") as f:
        return [row for row in csv.reader(f) if row]


def unchanged(*paths):
    """True when every listed /app file still matches the original workspace byte for byte."""
    return all(read_bytes(app(p)) == read_bytes(fixture(p)) for p in paths)
