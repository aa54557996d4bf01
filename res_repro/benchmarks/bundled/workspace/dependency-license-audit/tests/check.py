"""Rubric for the licence audit; expected verdicts are recomputed from the original manifests and database."""
import csv
import json
import os
import re
import sys
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_csv_rows, read_json, unchanged  # noqa: E402

COMPONENTS = tomllib.load(open(fixture("components.toml"), "rb"))["components"]


def norm(eco, name):
    return re.sub(r"[-_.]+", "-", name).lower() if eco == "pypi" else name


DB = {(r["ecosystem"], norm(r["ecosystem"], r["package"])): r["license"] for r in csv.DictReader(open(fixture("licenses/license_db.csv")))}
CAT = {}
for cat, names in {"permissive": "MIT BSD-2-Clause BSD-3-Clause Apache-2.0 ISC PSF-2.0", "weak": "LGPL-2.1-only LGPL-3.0-only MPL-2.0",
                   "strong": "GPL-2.0-only GPL-2.0-or-later GPL-3.0-only GPL-3.0-or-later",
                   "network": "AGPL-3.0-only AGPL-3.0-or-later"}.items():
    CAT.update(dict.fromkeys(names.split(), cat))
EXCEPTIONS = {("agent", "mysql-connector-python")}
WANT, KIND = {}, {}
for cname, comp in COMPONENTS.items():
    path = fixture(comp["manifest"])
    if comp["ecosystem"] == "npm":
        deps = list(json.load(open(path))["dependencies"].items())
    else:
        deps = [tuple(x.strip() for x in l.split("#")[0].split("==")) for l in open(path) if l.split("#")[0].strip()]
        deps = [(re.sub(r"\[.*\]", "", n), v) for n, v in deps]
    for name, version in deps:
        lic = DB.get((comp["ecosystem"], norm(comp["ecosystem"], name)), "UNKNOWN")
        cat = CAT.get(lic)
        verdict = {"permissive": "allowed", None: "review",
                   "weak": "notice" if comp["distributed"] else "allowed",
                   "strong": "forbidden" if comp["distributed"] else "allowed",
                   "network": "forbidden" if comp["distributed"] or comp["network_service"] else "allowed"}[cat]
        KIND[(cname, name)] = "exception" if (cname, norm(comp["ecosystem"], name)) in EXCEPTIONS else cat
        if (cname, norm(comp["ecosystem"], name)) in EXCEPTIONS:
            verdict = "exception"
        WANT[(cname, name)] = [cname, name, version, lic, verdict]
rubric = Rubric()


def report():
    rows = read_csv_rows(app("out/license_report.csv"))
    assert rows[0] == ["component", "package", "version", "license", "verdict"]
    return {(r[0], r[1]): r for r in rows[1:]}


def verdicts_ok(pred):
    got = report()
    keys = [k for k in WANT if pred(k)]
    assert keys
    return all(got.get(k, [None] * 5)[4] == WANT[k][4] for k in keys)


@rubric.item("report_layout")
def _():
    rows = read_csv_rows(app("out/license_report.csv"))
    keys = [(r[0], r[1].lower()) for r in rows[1:]]
    return rows[0] == ["component", "package", "version", "license", "verdict"] and keys == sorted(keys) and bool(keys)


@rubric.item("production_dependencies_only")
def _():
    return {k: v[2] for k, v in report().items()} == {k: v[2] for k, v in WANT.items()}


@rubric.item("licenses_looked_up")
def _():
    got = report()
    return all(got[k][3] == WANT[k][3] for k in WANT)


@rubric.item("permissive_allowed")
def _():
    return verdicts_ok(lambda k: KIND[k] == "permissive")


@rubric.item("weak_copyleft")
def _():
    return verdicts_ok(lambda k: KIND[k] == "weak")


@rubric.item("strong_copyleft")
def _():
    return verdicts_ok(lambda k: KIND[k] == "strong")


@rubric.item("network_copyleft")
def _():
    return verdicts_ok(lambda k: KIND[k] == "network")


@rubric.item("approved_exception_only")
def _():
    return verdicts_ok(lambda k: KIND[k] in ("exception", None))


@rubric.item("summary")
def _():
    want = {}
    for (cname, _), row in WANT.items():
        c = want.setdefault(cname, dict.fromkeys(["allowed", "notice", "forbidden", "review", "exception"], 0))
        c[row[4]] += 1
    for c in want.values():
        c["blocked"] = c["forbidden"] + c["review"] > 0
    return read_json(app("out/license_summary.json")) == want


@rubric.item("inputs_unchanged")
def _():
    return unchanged("README.md", "components.toml", "agent/requirements.txt", "tools/requirements.txt", "portal/package.json",
                     "licenses/license_db.csv", "policy/oss_policy.md", "legal/exceptions.md")


rubric.run()
