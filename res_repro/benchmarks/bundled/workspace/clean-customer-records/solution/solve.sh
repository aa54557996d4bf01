#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv, json, re
from datetime import datetime

schema = json.load(open("schema/customers.schema.json"))
lookups = {}
for name, spec in schema["fields"].items():
    if "lookup" in spec:
        table = {}
        for r in csv.DictReader(open(spec["lookup"], newline="", encoding="utf-8")):
            for alias in [r["name"], r["alpha2"]] + [a for a in r["aliases"].split(";") if a]:
                table[alias.strip().lower()] = r["alpha2"]
        lookups[name] = table

def transform(value, steps):
    for step in steps:
        value = {"trim": str.strip, "upper": str.upper, "lower": str.lower,
                 "collapse_spaces": lambda v: re.sub(r"\s+", " ", v)}[step](value)
    return value

def clean(row):
    out = {}
    for name, spec in schema["fields"].items():
        v = transform(row[name], spec.get("transform", []))
        if v == "":
            if spec.get("required"):
                return None, f"missing_required:{name}"
            out[name] = spec.get("default", "")
            continue
        if "pattern" in spec and not re.fullmatch(spec["pattern"], v):
            return None, f"invalid_format:{name}"
        if "enum" in spec and v not in spec["enum"]:
            return None, f"invalid_value:{name}"
        if "lookup" in spec:
            if v.lower() not in lookups[name]:
                return None, f"invalid_value:{name}"
            v = lookups[name][v.lower()]
        if "date_formats" in spec:
            parsed = None
            for fmt in spec["date_formats"]:
                try:
                    parsed = datetime.strptime(v, fmt).date().isoformat()
                    break
                except ValueError:
                    pass
            if parsed is None or not spec["min"] <= parsed <= spec["max"]:
                return None, f"invalid_value:{name}"
            v = parsed
        out[name] = v
    return out, None

dd = schema["deduplicate"]
rejected, valid = [], []
with open(schema["source"], newline="", encoding="utf-8") as f:
    for line, row in enumerate(csv.DictReader(f), start=2):
        rec, reason = clean(row)
        if rec is None:
            rejected.append((line, row["customer_id"].strip(), reason))
        else:
            valid.append((line, row, rec))
best = {}
for line, row, rec in valid:
    k = rec[dd["key"]]
    if k not in best or row[dd["order_by"]] > best[k][1][dd["order_by"]]:
        best[k] = (line, row, rec)
for line, row, rec in valid:
    if best[rec[dd["key"]]][0] != line:
        rejected.append((line, row["customer_id"].strip(), f"duplicate:{dd['key']}"))

with open("out/customers_clean.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(schema["output_columns"])
    for k in sorted(best):
        w.writerow([best[k][2][c] for c in schema["output_columns"]])
with open("out/customers_rejected.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["line", "customer_id", "reason"])
    w.writerows(sorted(rejected))
PY
