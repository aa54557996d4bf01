import unittest
from decimal import Decimal

from pricing import final_price


class RoundingTest(unittest.TestCase):
    def test_returns_decimal(self):
        self.assertIsInstance(final_price(10), Decimal)

    def test_rounds_half_up(self):
        self.assertEqual(final_price(Decimal("1.0375")), Decimal("1.25"))

    def test_float_input(self):
        self.assertEqual(final_price(0.1), Decimal("0.12"))


if __name__ == "__main__":
    unittest.main()
