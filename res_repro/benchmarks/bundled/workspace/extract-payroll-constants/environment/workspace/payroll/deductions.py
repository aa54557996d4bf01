"""Deductions from gross pay."""

from decimal import ROUND_HALF_UP, Decimal

CENT = Decimal("0.01")


def social_security(gross):
    return (gross * Decimal("0.062")).quantize(CENT, ROUND_HALF_UP)


def employer_social_security(gross):
    """The employer matches the employee contribution."""
    return (gross * Decimal("0.062")).quantize(CENT, ROUND_HALF_UP)


def pension(gross):
    return (gross * Decimal("0.093")).quantize(CENT, ROUND_HALF_UP)


def net_pay(gross):
    return gross - social_security(gross) - pension(gross)
