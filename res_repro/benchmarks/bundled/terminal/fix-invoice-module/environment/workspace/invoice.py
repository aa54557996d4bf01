"""Invoice calculations for the order service.

An order is plain text, one item per line: ``SKU;quantity;unit price``, for example
``KB-101;2;49.90``. Blank lines and lines whose first non-blank character is ``#`` are
skipped. Whitespace around each field is ignored.

All money is handled as ``decimal.Decimal`` and every amount the functions return is
rounded half-up to whole cents (0.005 becomes 0.01).

Discount codes are case-insensitive. A percentage code takes that share of the subtotal;
a fixed code takes a fixed amount, but never more than the subtotal. Tax is charged on
the subtotal after the discount.
"""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
TAX_RATE = Decimal("0.20")
DISCOUNTS = {
    "SAVE10": ("percent", Decimal("10")),
    "SAVE25": ("percent", Decimal("25")),
    "FLAT5": ("fixed", Decimal("5.00")),
}


def to_cents(value):
    """Round a Decimal to whole cents, half-up."""
    return round(Decimal(value), 2)


def parse_line(line):
    """Parse one item line into ``(sku, quantity, unit_price)``."""
    sku, quantity, price = line.split(";")
    return sku, int(quantity), float(price)


def parse_order(text):
    """Parse a whole order into a list of ``(sku, quantity, unit_price)`` tuples."""
    return [parse_line(line) for line in text.splitlines() if line.strip()]


def line_total(quantity, unit_price):
    """Price of one item line."""
    return to_cents(quantity * unit_price)


def subtotal(items):
    """Sum of all line totals."""
    return to_cents(sum((line_total(q, p) for _, q, p in items), Decimal("0")))


def discount_amount(amount, code):
    """Discount granted by ``code`` (or None) on a subtotal of ``amount``.

    An unknown code raises KeyError.
    """
    if code is None:
        return Decimal("0.00")
    kind, value = DISCOUNTS[code]
    if kind == "percent":
        return to_cents(amount * value / 100)
    return to_cents(value)


def invoice_total(items, code=None):
    """Return a dict with the subtotal, discount, tax and total of an order."""
    sub = subtotal(items)
    discount = discount_amount(sub, code)
    tax = to_cents(sub * TAX_RATE)
    total = to_cents(sub - discount + tax)
    return {"subtotal": sub, "discount": discount, "tax": tax, "total": total}
