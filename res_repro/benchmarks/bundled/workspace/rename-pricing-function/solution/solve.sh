#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
import re

def edit(path, pairs):
    text = open(path).read()
    for old, new in pairs:
        assert old in text, (path, old)
        text = text.replace(old, new)
    open(path, "w").write(text)

edit("shop/pricing.py", [
    ("from dataclasses import dataclass\n", "import warnings\nfrom dataclasses import dataclass\n"),
    ("def calc_price(item, qty, customer=None):\n    \"\"\"Price of ``qty`` units",
     "def compute_line_price(item, quantity, customer=None):\n    \"\"\"Price of ``quantity`` units"),
    ("    if qty < 0:\n        raise ValueError(\"qty must not be negative\")\n    price = item.unit_price * qty\n    if qty >= BULK_THRESHOLD:",
     "    if quantity < 0:\n        raise ValueError(\"quantity must not be negative\")\n    price = item.unit_price * quantity\n    if quantity >= BULK_THRESHOLD:"),
])
with open("shop/pricing.py", "a") as f:
    f.write('''

def calc_price(item, qty, customer=None):
    """Deprecated: use :func:`compute_line_price`."""
    warnings.warn("calc_price() is deprecated; use compute_line_price()", DeprecationWarning, stacklevel=2)
    return compute_line_price(item, qty, customer)
''')
edit("shop/cart.py", [("from shop.pricing import calc_price", "from shop.pricing import compute_line_price"),
                      ("calc_price(item, qty=quantity, customer=self.customer)",
                       "compute_line_price(item, quantity=quantity, customer=self.customer)")])
edit("shop/checkout.py", [("pricing.calc_price(", "pricing.compute_line_price(")])
edit("shop/reports/daily.py", [("from ..pricing import calc_price as price_of", "from ..pricing import compute_line_price as price_of"),
                               ("price_of(item, qty=quantity, customer=customer)", "price_of(item, quantity=quantity, customer=customer)")])
edit("docs/pricing.md", [
    ("Order lines are priced by `shop.pricing.calc_price(item, qty, customer=None)`.",
     "Order lines are priced by `shop.pricing.compute_line_price(item, quantity, customer=None)`."),
    ("- `qty` units of `item`", "- `quantity` units of `item`"),
    ("call `calc_price` for every\nline.", "call `compute_line_price` for\nevery line.\n\nThe old name `calc_price` is deprecated: it still works but emits a `DeprecationWarning`."),
])
PY
python3 scripts/run_checks.py
