"""Checkout: turns a cart into an invoice summary."""

from decimal import Decimal

from shop import pricing

SHIPPING_FLAT = Decimal("4.90")
FREE_SHIPPING_FROM = Decimal("50.00")


def summarize(cart):
    lines = []
    for item, quantity in cart.lines:
        lines.append((item.sku, quantity, pricing.calc_price(item, quantity, cart.customer)))
    subtotal = sum((p for _, _, p in lines), Decimal("0.00"))
    shipping = Decimal("0.00") if subtotal >= FREE_SHIPPING_FROM else SHIPPING_FLAT
    return {"lines": lines, "subtotal": subtotal, "shipping": shipping, "total": subtotal + shipping}
