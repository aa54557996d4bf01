"""Smoke checks for the shop package: python3 scripts/run_checks.py (from the repository root)."""

import os
import sys
import warnings
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
warnings.simplefilter("error", DeprecationWarning)   # internal code must not use deprecated names

from shop.cart import Cart  # noqa: E402
from shop.checkout import summarize  # noqa: E402
from shop.pricing import Customer, Item, compute_line_price  # noqa: E402
from shop.reports.daily import revenue_by_sku  # noqa: E402

mug = Item("MUG-1", Decimal("7.99"))
pen = Item("PEN-3", Decimal("1.15"))
gold = Customer("Ada", "gold")

assert compute_line_price(mug, 2) == Decimal("15.98")
assert compute_line_price(pen, quantity=10) == Decimal("10.93")
assert compute_line_price(mug, 3, gold) == Decimal("22.05")

cart = Cart(gold)
cart.add(mug, 3)
cart.add(pen, 12)
assert cart.cart_total() == Decimal("34.11"), cart.cart_total()

summary = summarize(cart)
assert summary["shipping"] == Decimal("4.90") and summary["total"] == Decimal("39.01"), summary

report = revenue_by_sku([(mug, 1, None), (mug, 10, gold), (pen, 4, None)])
assert report == {"MUG-1": Decimal("77.82"), "PEN-3": Decimal("4.60")}, report

print("all checks passed")
