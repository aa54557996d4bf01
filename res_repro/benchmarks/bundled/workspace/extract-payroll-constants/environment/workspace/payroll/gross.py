"""Gross pay."""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def gross_pay(hourly_rate, hours):
    """Pay for ``hours`` worked in one week at ``hourly_rate``; hours beyond 40 are overtime."""
    rate, hours = Decimal(str(hourly_rate)), Decimal(str(hours))
    regular = min(hours, 40)
    overtime = max(hours - 40, Decimal(0))
    pay = regular * rate + overtime * rate * Decimal("1.5")
    return pay.quantize(CENT, ROUND_HALF_UP)
