import os
import sys
import unittest
from datetime import date
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from app import money, textutil, timeutil  # noqa: E402
from app.catalog import make_entry  # noqa: E402
from app.orders import delivery_promise  # noqa: E402
from app.reports import report_line  # noqa: E402


class TextTest(unittest.TestCase):
    def test_slugify(self):
        self.assertEqual(textutil.slugify("Crème brûlée  Set #2"), "creme-brulee-set-2")

    def test_truncate(self):
        self.assertEqual(textutil.truncate("abcdefghij", 6), "abcde…")


class TimeTest(unittest.TestCase):
    def test_parse_and_business_days(self):
        self.assertEqual(timeutil.parse_date("01.03.2024"), date(2024, 3, 1))
        self.assertEqual(timeutil.business_days_between(date(2024, 3, 1), date(2024, 3, 8)), 5)
        self.assertEqual(timeutil.quarter_of(date(2024, 11, 5)), "2024-Q4")


class MoneyTest(unittest.TestCase):
    def test_format_and_parse(self):
        self.assertEqual(money.format_eur(Decimal("1234567.5")), "1.234.567,50 €")
        self.assertEqual(money.parse_amount("1.234,50 €"), Decimal("1234.50"))


class CallersTest(unittest.TestCase):
    def test_catalog(self):
        self.assertEqual(make_entry("Tea Pot", "19,90")["price_label"], "19,90 €")

    def test_orders(self):
        self.assertEqual(delivery_promise("2024-03-01", "2024/03/05", "42")["days_to_ship"], 2)

    def test_reports(self):
        self.assertEqual(report_line(date(2024, 2, 1), " ACME   GmbH ", "first  order"), "2024-Q1 | ACME GmbH | first order")


if __name__ == "__main__":
    unittest.main()
