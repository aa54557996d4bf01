#!/bin/bash
set -euo pipefail
cd /app
mkdir -p out
python3 - <<'PY'
import csv, glob, json
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

fx = {k: Decimal(str(v)) for k, v in json.load(open("config/fx.json"))["rates_to_eur"].items()}
known = {r["category"] for r in csv.DictReader(open("reference/categories.csv", newline=""))}
KG = {"g": Decimal("0.001"), "kg": Decimal(1), "lb": Decimal("0.45359237")}

def number(text, fmt):
    text = text.strip().replace(fmt["thousands"], "").replace(fmt["decimal"], ".")
    return Decimal(text)

accepted, rejected = [], []
for path in sorted(glob.glob("config/suppliers/*.json")):
    sup = json.load(open(path))
    cols, fmt, seen = sup["columns"], sup["number_format"], set()
    with open(sup["file"], newline="", encoding="utf-8") as f:
        for line, row in enumerate(csv.DictReader(f, delimiter=sup["delimiter"]), start=2):
            raw_sku = row[cols["sku"]].strip()
            def reject(reason):
                rejected.append((sup["code"], line, raw_sku, reason))
            skip = sup.get("skip_if")
            if skip and row[skip["column"]].strip() == skip["equals"]:
                reject(skip["reason"]); continue
            category = sup["category_map"].get(row[cols["category"]].strip())
            if category not in known:
                reject("unknown_category"); continue
            try:
                currency = row[cols["currency"]].strip() if "currency" in cols else sup["currency"]
                price = (number(row[cols["price"]], fmt) * fx[currency]).quantize(Decimal("0.01"), ROUND_HALF_UP)
            except (InvalidOperation, KeyError):
                price = Decimal(0)
            if price <= 0:
                reject("invalid_price"); continue
            try:
                weight = (number(row[cols["weight"]], fmt) * KG[sup["weight_unit"]]).quantize(Decimal("0.001"), ROUND_HALF_UP)
            except InvalidOperation:
                weight = Decimal(0)
            if weight <= 0:
                reject("invalid_weight"); continue
            sku = f"{sup['code']}-{raw_sku}"
            if sku in seen:
                reject("duplicate_sku"); continue
            seen.add(sku)
            accepted.append([sku, sup["code"], row[cols["name"]].strip(), category, f"{price:.2f}", f"{weight:.3f}"])

columns = json.load(open("schema/catalog.schema.json"))["columns"]
with open("out/catalog.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(columns)
    w.writerows(sorted(accepted))
with open("out/rejects.csv", "w", newline="", encoding="utf-8") as f:
    w = csv.writer(f, lineterminator="\n")
    w.writerow(["supplier", "line", "sku", "reason"])
    w.writerows(sorted(rejected))
PY
