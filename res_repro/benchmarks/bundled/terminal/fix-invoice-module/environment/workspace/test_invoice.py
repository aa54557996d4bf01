import unittest
from decimal import Decimal

import invoice

ORDER = """\
# order 4711
KB-101; 2 ;49.90

MS-7;1;24.95
  # gift wrap
CB-2;3;0.125
"""


class ParseTest(unittest.TestCase):
    def test_parse_line_strips_fields(self):
        self.assertEqual(invoice.parse_line(" KB-101 ; 2 ; 49.90 "), ("KB-101", 2, Decimal("49.90")))

    def test_parse_line_uses_decimal(self):
        self.assertIsInstance(invoice.parse_line("A;1;0.10")[2], Decimal)

    def test_parse_order_skips_blank_and_comment_lines(self):
        items = invoice.parse_order(ORDER)
        self.assertEqual([sku for sku, _, _ in items], ["KB-101", "MS-7", "CB-2"])


class MoneyTest(unittest.TestCase):
    def test_rounds_half_up(self):
        self.assertEqual(invoice.to_cents(Decimal("0.125")), Decimal("0.13"))
        self.assertEqual(invoice.to_cents(Decimal("2.675")), Decimal("2.68"))
        self.assertEqual(invoice.to_cents(Decimal("1.005")), Decimal("1.01"))

    def test_line_total(self):
        self.assertEqual(invoice.line_total(3, Decimal("0.125")), Decimal("0.38"))
        self.assertEqual(invoice.line_total(3, Decimal("0.10")), Decimal("0.30"))


class DiscountTest(unittest.TestCase):
    def test_percent(self):
        self.assertEqual(invoice.discount_amount(Decimal("80.00"), "SAVE25"), Decimal("20.00"))

    def test_codes_are_case_insensitive(self):
        self.assertEqual(invoice.discount_amount(Decimal("10.00"), "save10"), Decimal("1.00"))

    def test_fixed_discount_never_exceeds_subtotal(self):
        self.assertEqual(invoice.discount_amount(Decimal("3.20"), "FLAT5"), Decimal("3.20"))

    def test_unknown_code(self):
        with self.assertRaises(KeyError):
            invoice.discount_amount(Decimal("10.00"), "FREE")


class InvoiceTest(unittest.TestCase):
    def test_total_without_code(self):
        result = invoice.invoice_total(invoice.parse_order(ORDER))
        self.assertEqual(result["subtotal"], Decimal("125.13"))
        self.assertEqual(result["discount"], Decimal("0.00"))
        self.assertEqual(result["tax"], Decimal("25.03"))
        self.assertEqual(result["total"], Decimal("150.16"))

    def test_tax_is_charged_after_discount(self):
        result = invoice.invoice_total(invoice.parse_order(ORDER), "SAVE10")
        self.assertEqual(result["discount"], Decimal("12.51"))
        self.assertEqual(result["tax"], Decimal("22.52"))
        self.assertEqual(result["total"], Decimal("135.14"))


if __name__ == "__main__":
    unittest.main()
