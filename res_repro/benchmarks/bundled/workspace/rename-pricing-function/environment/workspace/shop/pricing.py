"""Prices of order lines."""

from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")
BULK_THRESHOLD = 10          # lines of at least this many units get the bulk discount
BULK_DISCOUNT = Decimal("0.05")
TIER_DISCOUNT = {"standard": Decimal("0"), "silver": Decimal("0.03"), "gold": Decimal("0.08")}


@dataclass(frozen=True)
class Item:
    sku: str
    unit_price: Decimal


@dataclass(frozen=True)
class Customer:
    name: str
    tier: str = "standard"


def calc_price(item, qty, customer=None):
    """Price of ``qty`` units of ``item`` for ``customer``, rounded to cents (half up).

    Lines of BULK_THRESHOLD units or more get BULK_DISCOUNT; the customer's tier discount is
    applied on top of that.
    """
    if qty < 0:
        raise ValueError("qty must not be negative")
    price = item.unit_price * qty
    if qty >= BULK_THRESHOLD:
        price *= 1 - BULK_DISCOUNT
    if customer is not None:
        price *= 1 - TIER_DISCOUNT[customer.tier]
    return price.quantize(CENT, rounding=ROUND_HALF_UP)
