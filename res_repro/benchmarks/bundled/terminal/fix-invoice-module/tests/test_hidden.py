import unittest
from decimal import Decimal

import invoice


class HiddenTest(unittest.TestCase):
    def test_parse_line_more(self):
        self.assertEqual(invoice.parse_line("  X-1 ;10; 1.999 "), ("X-1", 10, Decimal("1.999")))
        self.assertEqual(invoice.line_total(10, Decimal("1.999")), Decimal("19.99"))

    def test_rounding_more(self):
        self.assertEqual(invoice.to_cents(Decimal("0.005")), Decimal("0.01"))
        self.assertEqual(invoice.to_cents(Decimal("10.0049")), Decimal("10.00"))
        self.assertEqual(invoice.to_cents(Decimal("7")), Decimal("7.00"))
        self.assertEqual(str(invoice.to_cents(Decimal("7"))), "7.00")

    def test_comment_after_spaces(self):
        items = invoice.parse_order("\t# note\nA;1;1.00\n   \n#B;2;2.00\n")
        self.assertEqual(items, [("A", 1, Decimal("1.00"))])

    def test_fixed_code_lower_case(self):
        self.assertEqual(invoice.discount_amount(Decimal("20.00"), "flat5"), Decimal("5.00"))

    def test_fixed_code_on_tiny_order(self):
        result = invoice.invoice_total([("X", 1, Decimal("3.00"))], "Flat5")
        self.assertEqual(result, {"subtotal": Decimal("3.00"), "discount": Decimal("3.00"),
                                  "tax": Decimal("0.00"), "total": Decimal("0.00")})

    def test_percent_code_rounding(self):
        result = invoice.invoice_total(invoice.parse_order("P;3;3.35\nQ;1;0.05"), "SAVE25")
        # subtotal 10.10, discount 2.525 -> 2.53, taxed 7.57 -> tax 1.514 -> 1.51, total 9.08
        self.assertEqual(result["subtotal"], Decimal("10.10"))
        self.assertEqual(result["discount"], Decimal("2.53"))
        self.assertEqual(result["tax"], Decimal("1.51"))
        self.assertEqual(result["total"], Decimal("9.08"))
        for value in result.values():
            self.assertIsInstance(value, Decimal)


if __name__ == "__main__":
    unittest.main()
