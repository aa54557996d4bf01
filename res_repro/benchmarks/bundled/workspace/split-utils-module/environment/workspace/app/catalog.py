"""Catalogue entries."""

from app.utils import format_eur, parse_amount, slugify


def make_entry(title, price_text):
    price = parse_amount(price_text)
    return {"slug": slugify(title), "title": title, "price": price, "price_label": format_eur(price)}
