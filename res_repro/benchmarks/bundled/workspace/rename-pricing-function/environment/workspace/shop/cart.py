"""Shopping carts."""

from shop.pricing import calc_price


class Cart:
    def __init__(self, customer=None):
        self.customer = customer
        self.lines = []          # (item, quantity)

    def add(self, item, quantity=1):
        self.lines.append((item, quantity))

    def line_prices(self):
        return [calc_price(item, qty=quantity, customer=self.customer) for item, quantity in self.lines]

    def cart_total(self):
        return sum(self.line_prices(), start=0)
