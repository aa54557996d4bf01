"""Checks for the payroll package: python3 checks/run_checks.py (from the repository root)."""

import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from payroll import constants  # noqa: E402
from payroll.deductions import net_pay, pension, social_security  # noqa: E402
from payroll.gross import gross_pay  # noqa: E402
from payroll.report import payslip_lines  # noqa: E402

assert constants.STANDARD_WEEKLY_HOURS == 40 and isinstance(constants.STANDARD_WEEKLY_HOURS, int)
assert constants.OVERTIME_MULTIPLIER == Decimal("1.5")
assert constants.SOCIAL_SECURITY_RATE == Decimal("0.062")

assert gross_pay("18.50", 38) == Decimal("703.00")
assert gross_pay("20.00", 45) == Decimal("950.00")
assert social_security(Decimal("950.00")) == Decimal("58.90")
assert pension(Decimal("703.00")) == Decimal("66.79")
assert net_pay(Decimal("703.00")) == Decimal("592.62")

lines = payslip_lines("Kim", "20.00", 45)
assert lines[1] == "Hours: 45 (standard week: 40 h)", lines[1]
assert lines[4] == "Pension (9.5%): 90.25", lines[4]

print("all checks passed")
