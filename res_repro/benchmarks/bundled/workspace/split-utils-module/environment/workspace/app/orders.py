"""Orders and delivery promises."""

from app import utils


def delivery_promise(ordered, shipped, total):
    ordered_on, shipped_on = utils.parse_date(ordered), utils.parse_date(shipped)
    return {
        "days_to_ship": utils.business_days_between(ordered_on, shipped_on),
        "total": utils.format_eur(total),
    }
