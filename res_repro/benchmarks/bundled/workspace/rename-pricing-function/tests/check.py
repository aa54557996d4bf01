"""Rubric for RFC 14 (calc_price -> compute_line_price): behaviour is checked by running the code in a copy of /app."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import APP, Rubric, app, fixture, read_text, unchanged  # noqa: E402

PRELUDE = """
import sys, warnings, importlib.util
from decimal import Decimal
sys.path.insert(0, ".")
spec = importlib.util.spec_from_file_location("orig_pricing", {orig!r})
orig = importlib.util.module_from_spec(spec); spec.loader.exec_module(orig)
from shop.pricing import Item, Customer
ITEMS = [Item("A", Decimal("7.99")), Item("B", Decimal("1.15")), Item("C", Decimal("0.333")), Item("D", Decimal("120"))]
CUSTOMERS = [None, Customer("x"), Customer("y", "silver"), Customer("z", "gold")]
def want(item, q, c):
    return orig.calc_price(orig.Item(item.sku, item.unit_price), q, None if c is None else orig.Customer(c.name, c.tier))
""".format(orig=fixture("shop/pricing.py"))


def run(code, fixture_files=()):
    tmp = tempfile.mkdtemp()
    root = os.path.join(tmp, "app")
    shutil.copytree(APP, root, ignore=shutil.ignore_patterns("__pycache__"))
    for f in fixture_files:
        os.makedirs(os.path.dirname(os.path.join(root, f)), exist_ok=True)
        shutil.copy(fixture(f), os.path.join(root, f))
    try:
        done = subprocess.run([sys.executable, "-c", code] if code else [sys.executable, "scripts/run_checks.py"],
                              cwd=root, capture_output=True, text=True, timeout=20,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONDONTWRITEBYTECODE": "1"})
        print(done.stdout[-600:], done.stderr[-600:])
        return done.returncode == 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def no_old_name(path):
    return re.search(r"\bcalc_price\b", read_text(app(path))) is None


rubric = Rubric()


@rubric.item("new_signature")
def _():
    return run("""
import inspect, sys
sys.path.insert(0, ".")
from shop.pricing import compute_line_price
params = inspect.signature(compute_line_price).parameters
assert list(params) == ["item", "quantity", "customer"], list(params)
assert params["customer"].default is None
""")


@rubric.item("behaviour_preserved")
def _():
    return run(PRELUDE + """
from shop.pricing import compute_line_price
warnings.simplefilter("error", DeprecationWarning)
for item in ITEMS:
    for q in (0, 1, 3, 9, 10, 25):
        for c in CUSTOMERS:
            assert compute_line_price(item, q, c) == want(item, q, c), (item, q, c)
            assert compute_line_price(item, quantity=q, customer=c) == want(item, q, c)
try:
    compute_line_price(ITEMS[0], -1)
except ValueError:
    pass
else:
    raise AssertionError("negative quantity accepted")
""")


@rubric.item("deprecated_wrapper")
def _():
    return run(PRELUDE + """
from shop.pricing import calc_price
for args, kwargs in (((ITEMS[0], 12), {}), ((ITEMS[2],), {"qty": 4, "customer": CUSTOMERS[2]}), ((ITEMS[3], 1, CUSTOMERS[3]), {})):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = calc_price(*args, **kwargs)
    assert any(issubclass(w.category, DeprecationWarning) for w in caught), "no DeprecationWarning"
    q = kwargs.get("qty", args[1] if len(args) > 1 else None)
    assert got == want(args[0], q, kwargs.get("customer", args[2] if len(args) > 2 else None)), got
""")


@rubric.item("cart_updated")
def _():
    return no_old_name("shop/cart.py") and run(PRELUDE + """
warnings.simplefilter("error", DeprecationWarning)
from shop.cart import Cart
cart = Cart(CUSTOMERS[3])
for i, item in enumerate(ITEMS):
    cart.add(item, 4 * i + 1)
assert cart.line_prices() == [want(item, 4 * i + 1, CUSTOMERS[3]) for i, item in enumerate(ITEMS)]
""")


@rubric.item("checkout_updated")
def _():
    return no_old_name("shop/checkout.py") and run(PRELUDE + """
warnings.simplefilter("error", DeprecationWarning)
from shop.cart import Cart
from shop.checkout import summarize
cart = Cart(CUSTOMERS[2])
cart.add(ITEMS[3], 1); cart.add(ITEMS[1], 11)
s = summarize(cart)
sub = want(ITEMS[3], 1, CUSTOMERS[2]) + want(ITEMS[1], 11, CUSTOMERS[2])
assert s["subtotal"] == sub and s["total"] == sub and s["shipping"] == Decimal("0.00"), s
""")


@rubric.item("daily_report_updated")
def _():
    return no_old_name("shop/reports/daily.py") and run(PRELUDE + """
warnings.simplefilter("error", DeprecationWarning)
from shop.reports.daily import revenue_by_sku
orders = [(ITEMS[0], 2, None), (ITEMS[0], 10, CUSTOMERS[3]), (ITEMS[2], 7, CUSTOMERS[2])]
assert revenue_by_sku(orders) == {"A": want(ITEMS[0], 2, None) + want(ITEMS[0], 10, CUSTOMERS[3]), "C": want(ITEMS[2], 7, CUSTOMERS[2])}
""")


@rubric.item("run_checks_passes")
def _():
    return run(None, fixture_files=["scripts/run_checks.py"])


@rubric.item("docs_updated")
def _():
    text = read_text(app("docs/pricing.md"))
    old_lines = [l for l in text.splitlines() if re.search(r"\bcalc_price\b", l)]
    return "compute_line_price(item, quantity, customer=None)" in text and \
        all("deprecated" in l.lower() for l in old_lines) and re.search(r"`qty`", text) is None


@rubric.item("rfc_and_checks_unchanged")
def _():
    return unchanged("REFACTOR.md", "scripts/run_checks.py")


rubric.run()
