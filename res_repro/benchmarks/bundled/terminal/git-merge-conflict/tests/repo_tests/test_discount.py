import unittest

from pricing import final_price


class DiscountTest(unittest.TestCase):
    def test_half_off(self):
        self.assertEqual(final_price(50, discount=0.5), 30)

    def test_no_discount_by_default(self):
        self.assertEqual(final_price(10), 12)

    def test_rejects_full_discount(self):
        with self.assertRaises(ValueError):
            final_price(10, discount=1)

    def test_rejects_negative_discount(self):
        with self.assertRaises(ValueError):
            final_price(10, discount=-0.1)


if __name__ == "__main__":
    unittest.main()
