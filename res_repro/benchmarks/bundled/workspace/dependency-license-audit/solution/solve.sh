#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv, json, re, tomllib

components = tomllib.load(open("components.toml", "rb"))["components"]

def norm(eco, name):
    return re.sub(r"[-_.]+", "-", name).lower() if eco == "pypi" else name

db = {(r["ecosystem"], norm(r["ecosystem"], r["package"])): r["license"]
      for r in csv.DictReader(open("licenses/license_db.csv", newline=""))}
CATEGORY = {}
for cat, names in {"permissive": "MIT BSD-2-Clause BSD-3-Clause Apache-2.0 ISC PSF-2.0",
                   "weak": "LGPL-2.1-only LGPL-3.0-only MPL-2.0",
                   "strong": "GPL-2.0-only GPL-2.0-or-later GPL-3.0-only GPL-3.0-or-later",
                   "network": "AGPL-3.0-only AGPL-3.0-or-later"}.items():
    for n in names.split():
        CATEGORY[n] = cat
exceptions = {("agent", "mysql-connector-python")}       # legal/exceptions.md: the only approved one

def deps(comp):
    path = comp["manifest"]
    if comp["ecosystem"] == "npm":
        return list(json.load(open(path))["dependencies"].items())
    out = []
    for line in open(path):
        line = line.split("#")[0].strip()
        if line:
            name, version = line.split("==")
            out.append((re.sub(r"\[.*\]", "", name).strip(), version.strip()))
    return out

rows, summary = [], {}
for cname, comp in components.items():
    counts = dict.fromkeys(["allowed", "notice", "forbidden", "review", "exception"], 0)
    for name, version in deps(comp):
        lic = db.get((comp["ecosystem"], norm(comp["ecosystem"], name)), "UNKNOWN")
        cat = CATEGORY.get(lic)
        if cat is None:
            verdict = "review"
        elif cat == "permissive":
            verdict = "allowed"
        elif cat == "weak":
            verdict = "notice" if comp["distributed"] else "allowed"
        elif cat == "strong":
            verdict = "forbidden" if comp["distributed"] else "allowed"
        else:
            verdict = "forbidden" if comp["distributed"] or comp["network_service"] else "allowed"
        if (cname, norm(comp["ecosystem"], name)) in exceptions:
            verdict = "exception"
        counts[verdict] += 1
        rows.append([cname, name, version, lic, verdict])
    summary[cname] = {**counts, "blocked": counts["forbidden"] + counts["review"] > 0}

rows.sort(key=lambda r: (r[0], r[1].lower()))
with open("out/license_report.csv", "w", newline="") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["component", "package", "version", "license", "verdict"])
    w.writerows(rows)
json.dump(summary, open("out/license_summary.json", "w"), indent=2)
PY
