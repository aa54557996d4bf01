"""Rubric for the customer cleaning: expected output recomputed from the original raw file and schema."""
import csv
import json
import os
import re
import sys
from datetime import datetime

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_csv, read_csv_rows, unchanged  # noqa: E402

SCHEMA = json.load(open(fixture("schema/customers.schema.json")))
COLS = SCHEMA["output_columns"]
LOOKUP = {}
for r in read_csv(fixture("reference/countries.csv")):
    for a in [r["name"], r["alpha2"]] + [a for a in r["aliases"].split(";") if a]:
        LOOKUP[a.strip().lower()] = r["alpha2"]
STEPS = {"trim": str.strip, "upper": str.upper, "lower": str.lower, "collapse_spaces": lambda v: re.sub(r"\s+", " ", v)}


def clean(row):
    out = {}
    for name, spec in SCHEMA["fields"].items():
        v = row[name]
        for s in spec.get("transform", []):
            v = STEPS[s](v)
        if not v:
            if spec.get("required"):
                return None, f"missing_required:{name}"
            out[name] = spec["default"]
            continue
        if "pattern" in spec and not re.fullmatch(spec["pattern"], v):
            return None, f"invalid_format:{name}"
        if "enum" in spec and v not in spec["enum"]:
            return None, f"invalid_value:{name}"
        if "lookup" in spec:
            if v.lower() not in LOOKUP:
                return None, f"invalid_value:{name}"
            v = LOOKUP[v.lower()]
        if "date_formats" in spec:
            d = None
            for fmt in spec["date_formats"]:
                try:
                    d = datetime.strptime(v, fmt).date().isoformat()
                    break
                except ValueError:
                    continue
            if d is None or not spec["min"] <= d <= spec["max"]:
                return None, f"invalid_value:{name}"
            v = d
        out[name] = v
    return out, None


RAW = read_csv(fixture("data/customers_raw.csv"))
REJECTED, VALID = {}, []
for line, row in enumerate(RAW, start=2):
    rec, reason = clean(row)
    if rec:
        VALID.append((line, row, rec))
    else:
        REJECTED[line] = (row["customer_id"].strip(), reason)
BEST = {}
for line, row, rec in VALID:
    k = rec["customer_id"]
    if k not in BEST or row["updated_at"] > BEST[k][1]["updated_at"]:
        BEST[k] = (line, row, rec)
for line, row, rec in VALID:
    if BEST[rec["customer_id"]][0] != line:
        REJECTED[line] = (row["customer_id"].strip(), "duplicate:customer_id")
CLEAN = {k: v[2] for k, v in BEST.items()}
DUP_IDS = {clean(RAW[l - 2])[0]["customer_id"] for l, (_, r) in REJECTED.items() if r.startswith("duplicate")}
rubric = Rubric()


def got_clean():
    return {r["customer_id"]: r for r in read_csv(app("out/customers_clean.csv"))}


def column_ok(col, ids=None):
    got = got_clean()
    ids = [i for i in (ids or CLEAN) if i not in DUP_IDS]
    present = [i for i in ids if i in got]
    return len(present) >= 0.9 * len(ids) and all(got[i][col] == CLEAN[i][col] for i in present)


@rubric.item("clean_header")
def _():
    return read_csv_rows(app("out/customers_clean.csv"))[0] == COLS


@rubric.item("clean_record_set")
def _():
    return set(got_clean()) == set(CLEAN)


@rubric.item("clean_sorted_by_id")
def _():
    ids = [r[0] for r in read_csv_rows(app("out/customers_clean.csv"))[1:]]
    return len(ids) > 1 and ids == sorted(ids)


@rubric.item("names_and_emails_normalised")
def _():
    return column_ok("name") and column_ok("email")


@rubric.item("countries_mapped_to_codes")
def _():
    return column_ok("country")


@rubric.item("dates_iso")
def _():
    return column_ok("signup_date")


@rubric.item("tiers_with_default")
def _():
    return column_ok("tier")


@rubric.item("duplicates_keep_latest")
def _():
    got = got_clean()
    return bool(DUP_IDS) and all(got[i] == CLEAN[i] for i in DUP_IDS)


def got_rejected():
    rows = read_csv_rows(app("out/customers_rejected.csv"))
    assert rows[0] == ["line", "customer_id", "reason"]
    return {int(r[0]): (r[1], r[2]) for r in rows[1:]}


@rubric.item("rejected_lines")
def _():
    lines = [int(r[0]) for r in read_csv_rows(app("out/customers_rejected.csv"))[1:]]
    return lines == sorted(REJECTED)


@rubric.item("validation_reasons")
def _():
    got = got_rejected()
    ids = [l for l, (_, r) in REJECTED.items() if not r.startswith("duplicate")]
    return all(got.get(l) == REJECTED[l] for l in ids)


@rubric.item("duplicate_reasons")
def _():
    got = got_rejected()
    ids = [l for l, (_, r) in REJECTED.items() if r.startswith("duplicate")]
    return bool(ids) and all(got.get(l) == REJECTED[l] for l in ids)


@rubric.item("inputs_unchanged")
def _():
    return unchanged("data/customers_raw.csv", "schema/customers.schema.json", "reference/countries.csv",
                     "docs/cleaning_rules.md", "README.md")


rubric.run()
