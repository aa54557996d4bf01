"""Rubric for ADR 0007 (split app/utils.py); behaviour is compared with the original module in a copy of /app."""
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import APP, Rubric, app, fixture, read_text, unchanged  # noqa: E402

PRELUDE = """
import sys, importlib.util
from datetime import date
from decimal import Decimal
sys.path.insert(0, ".")
spec = importlib.util.spec_from_file_location("orig_utils", {orig!r})
orig = importlib.util.module_from_spec(spec); spec.loader.exec_module(orig)
TEXTS = ["Crème brûlée  Set #2", "  Hello,   World  ", "Ünïcödé\\tTabs\\nand lines", "", "a--b__c", "Ωmega  Straße"]
DATES = ["2024-03-01", "01.03.2024", "2024/12/31", " 2023-02-28 "]
AMOUNTS = ["1.234,50 €", "1234.50", "0,99", "12", "-3,5 €"]
""".format(orig=fixture("app/utils.py"))


def run(code, fixture_dirs=()):
    tmp = tempfile.mkdtemp()
    root = os.path.join(tmp, "app")
    shutil.copytree(APP, root, ignore=shutil.ignore_patterns("__pycache__"))
    for d in fixture_dirs:
        shutil.rmtree(os.path.join(root, d), ignore_errors=True)
        shutil.copytree(fixture(d), os.path.join(root, d))
    try:
        args = [sys.executable, "-c", code] if code else [sys.executable, "-m", "unittest", "discover", "-s", "tests"]
        done = subprocess.run(args, cwd=root, capture_output=True, text=True, timeout=20,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONDONTWRITEBYTECODE": "1"})
        print(done.stdout[-600:], done.stderr[-600:])
        return done.returncode == 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def imports_utils(path):
    text = read_text(app(path))
    return re.search(r"\butils\b", text) is not None


rubric = Rubric()


@rubric.item("textutil_module")
def _():
    return run(PRELUDE + """
from app import textutil as m
for t in TEXTS:
    assert m.slugify(t) == orig.slugify(t), t
    assert m.normalize_whitespace(t) == orig.normalize_whitespace(t), t
    for w in (0, 3, 8, 40):
        assert m.truncate(t, w) == orig.truncate(t, w)
        assert m.truncate(t, w, suffix="...") == orig.truncate(t, w, suffix="...")
""")


@rubric.item("timeutil_module")
def _():
    return run(PRELUDE + """
from app import timeutil as m
for d in DATES:
    assert m.parse_date(d) == orig.parse_date(d)
try:
    m.parse_date("03-01-2024")
except ValueError:
    pass
else:
    raise AssertionError("bad date accepted")
for a, b in ((date(2024, 3, 1), date(2024, 3, 8)), (date(2024, 12, 20), date(2025, 1, 6)), (date(2024, 5, 5), date(2024, 5, 5))):
    assert m.business_days_between(a, b) == orig.business_days_between(a, b)
for mth in range(1, 13):
    assert m.quarter_of(date(2024, mth, 15)) == orig.quarter_of(date(2024, mth, 15))
""")


@rubric.item("money_module")
def _():
    return run(PRELUDE + """
from app import money as m
for a in AMOUNTS:
    assert m.parse_amount(a) == orig.parse_amount(a)
    assert m.format_eur(orig.parse_amount(a)) == orig.format_eur(orig.parse_amount(a))
for v in ("0", "999.995", "1000", "-1234567.891"):
    assert m.format_eur(Decimal(v)) == orig.format_eur(Decimal(v))
""")


@rubric.item("utils_module_deleted")
def _():
    return not os.path.exists(app("app/utils.py")) and all(
        os.path.exists(app(p)) for p in ("app/textutil.py", "app/timeutil.py", "app/money.py"))


@rubric.item("unused_code_deleted")
def _():
    defined = set()
    for name in os.listdir(app("app")):
        if name.endswith(".py"):
            tree = ast.parse(read_text(app("app/" + name)))
            defined |= {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    return {"slugify", "parse_date", "format_eur"} <= defined and not {"legacy_slug", "today"} & defined


@rubric.item("catalog_updated")
def _():
    return not imports_utils("app/catalog.py") and run(PRELUDE + """
from app.catalog import make_entry
for title, price in (("Tea Pot", "19,90"), ("Crème Set", "1.299,00 €"), ("X", "5")):
    e = make_entry(title, price)
    p = orig.parse_amount(price)
    assert e == {"slug": orig.slugify(title), "title": title, "price": p, "price_label": orig.format_eur(p)}, e
""")


@rubric.item("orders_updated")
def _():
    return not imports_utils("app/orders.py") and run(PRELUDE + """
from app.orders import delivery_promise
for a, b, t in (("2024-03-01", "2024/03/05", "42"), ("20.12.2024", "2025-01-06", "1234.5")):
    got = delivery_promise(a, b, t)
    assert got == {"days_to_ship": orig.business_days_between(orig.parse_date(a), orig.parse_date(b)),
                   "total": orig.format_eur(t)}, got
""")


@rubric.item("reports_updated")
def _():
    return not imports_utils("app/reports.py") and run(PRELUDE + """
from app.reports import report_line
for t in TEXTS:
    want = f"{orig.quarter_of(date(2024, 8, 1))} | {orig.normalize_whitespace(t)} | {orig.truncate(orig.normalize_whitespace(t + ' note  text'), 12)}"
    assert report_line(date(2024, 8, 1), t, t + " note  text", width=12) == want
""")


@rubric.item("unit_tests_pass")
def _():
    return run(None, fixture_dirs=["tests"])


@rubric.item("adr_and_tests_unchanged")
def _():
    return unchanged("docs/adr/0007-split-utils.md", "tests/test_app.py")


rubric.run()
