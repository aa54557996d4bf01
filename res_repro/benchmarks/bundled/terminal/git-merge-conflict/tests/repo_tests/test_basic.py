import unittest

from pricing import final_price


class BasicTest(unittest.TestCase):
    def test_adds_tax(self):
        self.assertEqual(final_price(100), 120)

    def test_zero(self):
        self.assertEqual(final_price(0), 0)


if __name__ == "__main__":
    unittest.main()
