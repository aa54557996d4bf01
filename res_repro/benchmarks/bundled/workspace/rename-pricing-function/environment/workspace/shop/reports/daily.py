"""Daily sales report."""

from collections import defaultdict

from ..pricing import calc_price as price_of


def revenue_by_sku(orders):
    """``orders`` is a list of (item, quantity, customer); returns {sku: revenue}."""
    totals = defaultdict(int)
    for item, quantity, customer in orders:
        totals[item.sku] += price_of(item, qty=quantity, customer=customer)
    return dict(totals)
