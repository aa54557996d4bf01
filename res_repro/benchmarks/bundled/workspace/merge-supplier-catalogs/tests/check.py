"""Rubric for the supplier catalogue import; the expected catalogue is recomputed from the original inputs."""
import csv
import json
import os
import sys
from decimal import ROUND_HALF_UP, Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import Rubric, app, fixture, read_csv, read_csv_rows, unchanged  # noqa: E402

FX = {k: Decimal(str(v)) for k, v in json.load(open(fixture("config/fx.json")))["rates_to_eur"].items()}
KNOWN = {r["category"] for r in read_csv(fixture("reference/categories.csv"))}
KG = {"g": Decimal("0.001"), "lb": Decimal("0.45359237")}
COLUMNS = ["sku", "supplier", "name", "category", "price_eur", "weight_kg"]
WANT, REJ = {}, {}
for name in ("nordwind", "pacifica"):
    sup = json.load(open(fixture(f"config/suppliers/{name}.json")))
    c, fmt, seen = sup["columns"], sup["number_format"], set()
    num = lambda t: Decimal(t.strip().replace(fmt["thousands"], "").replace(fmt["decimal"], "."))
    with open(fixture(sup["file"]), newline="", encoding="utf-8") as f:
        for line, row in enumerate(csv.DictReader(f, delimiter=sup["delimiter"]), start=2):
            key, raw = (sup["code"], line), row[c["sku"]].strip()
            skip = sup.get("skip_if")
            cat = sup["category_map"].get(row[c["category"]].strip())
            price = (num(row[c["price"]]) * FX[row[c["currency"]].strip() if "currency" in c else sup["currency"]]
                     ).quantize(Decimal("0.01"), ROUND_HALF_UP)
            weight = (num(row[c["weight"]]) * KG[sup["weight_unit"]]).quantize(Decimal("0.001"), ROUND_HALF_UP)
            sku = f"{sup['code']}-{raw}"
            if skip and row[skip["column"]].strip() == skip["equals"]:
                REJ[key] = (raw, skip["reason"])
            elif cat not in KNOWN:
                REJ[key] = (raw, "unknown_category")
            elif price <= 0:
                REJ[key] = (raw, "invalid_price")
            elif weight <= 0:
                REJ[key] = (raw, "invalid_weight")
            elif sku in seen:
                REJ[key] = (raw, "duplicate_sku")
            else:
                seen.add(sku)
                WANT[sku] = {"sku": sku, "supplier": sup["code"], "name": row[c["name"]].strip(), "category": cat,
                             "price_eur": f"{price:.2f}", "weight_kg": f"{weight:.3f}"}
rubric = Rubric()


def got():
    return {r["sku"]: r for r in read_csv(app("out/catalog.csv"))}


def fields_ok(fields, supplier=None):
    g = got()
    skus = [s for s in WANT if supplier is None or WANT[s]["supplier"] == supplier]
    present = [s for s in skus if s in g]
    return len(present) >= 0.9 * len(skus) and all(g[s][f] == WANT[s][f] for s in present for f in fields)


@rubric.item("catalog_header")
def _():
    return read_csv_rows(app("out/catalog.csv"))[0] == COLUMNS


@rubric.item("catalog_article_set")
def _():
    return set(got()) == set(WANT)


@rubric.item("sorted_by_sku")
def _():
    skus = [r[0] for r in read_csv_rows(app("out/catalog.csv"))[1:]]
    return len(skus) > 1 and skus == sorted(skus)


@rubric.item("nordwind_prices")
def _():
    return fields_ok(["price_eur"], "NW")


@rubric.item("pacifica_prices")
def _():
    return fields_ok(["price_eur"], "PC")


@rubric.item("weights_in_kg")
def _():
    return fields_ok(["weight_kg"])


@rubric.item("names_categories_suppliers")
def _():
    return fields_ok(["name", "category", "supplier"])


def rejects():
    rows = read_csv_rows(app("out/rejects.csv"))
    assert rows[0] == ["supplier", "line", "sku", "reason"]
    return [(r[0], int(r[1]), r[2], r[3]) for r in rows[1:]]


@rubric.item("rejected_rows")
def _():
    return [(s, l) for s, l, _, _ in rejects()] == sorted(REJ)


@rubric.item("rejection_reasons")
def _():
    got_r = {(s, l): (k, r) for s, l, k, r in rejects()}
    return all(got_r.get(k) == v for k, v in REJ.items())


@rubric.item("inputs_unchanged")
def _():
    return unchanged("suppliers/nordwind.csv", "suppliers/pacifica.csv", "config/suppliers/nordwind.json",
                     "config/suppliers/pacifica.json", "config/fx.json", "reference/categories.csv",
                     "schema/catalog.schema.json", "README.md")


rubric.run()
