#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
import re

path = "invoice.py"
src = open(path).read()


def sub(old, new):
    global src
    assert src.count(old) == 1, old
    src = src.replace(old, new)


sub("    return round(Decimal(value), 2)\n",
    "    return Decimal(value).quantize(CENT, rounding=ROUND_HALF_UP)\n")
sub("    return sku, int(quantity), float(price)\n",
    "    return sku.strip(), int(quantity), Decimal(price.strip())\n")
sub("    return [parse_line(line) for line in text.splitlines() if line.strip()]\n",
    "    return [\n"
    "        parse_line(line)\n"
    "        for line in text.splitlines()\n"
    "        if line.strip() and not line.strip().startswith(\"#\")\n"
    "    ]\n")
sub("    kind, value = DISCOUNTS[code]\n", "    kind, value = DISCOUNTS[code.upper()]\n")
sub("    return to_cents(value)\n", "    return to_cents(min(value, amount))\n")
sub("    tax = to_cents(sub * TAX_RATE)\n", "    tax = to_cents((sub - discount) * TAX_RATE)\n")
open(path, "w").write(src)
PY
python3 -m unittest -q test_invoice
