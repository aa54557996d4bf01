#!/bin/bash
set -euo pipefail
cd /app
cat > payroll/constants.py <<'PY'
"""Payroll rates: the single place where they are defined (rates for 2025, see docs/rates_2025.md)."""

from decimal import Decimal

STANDARD_WEEKLY_HOURS = 40
OVERTIME_MULTIPLIER = Decimal("1.5")
SOCIAL_SECURITY_RATE = Decimal("0.062")
PENSION_RATE = Decimal("0.095")
PY
python3 - <<'PY'
def edit(path, pairs):
    text = open(path).read()
    for old, new in pairs:
        assert old in text, (path, old)
        text = text.replace(old, new)
    open(path, "w").write(text)

edit("payroll/gross.py", [
    ("from decimal import ROUND_HALF_UP, Decimal\n",
     "from decimal import ROUND_HALF_UP, Decimal\n\nfrom payroll.constants import OVERTIME_MULTIPLIER, STANDARD_WEEKLY_HOURS\n"),
    ("hours beyond 40 are overtime", "hours beyond the standard week are overtime"),
    ("min(hours, 40)", "min(hours, STANDARD_WEEKLY_HOURS)"),
    ("max(hours - 40, Decimal(0))", "max(hours - STANDARD_WEEKLY_HOURS, Decimal(0))"),
    ('rate * Decimal("1.5")', "rate * OVERTIME_MULTIPLIER"),
])
edit("payroll/deductions.py", [
    ("from decimal import ROUND_HALF_UP, Decimal\n",
     "from decimal import ROUND_HALF_UP, Decimal\n\nfrom payroll.constants import PENSION_RATE, SOCIAL_SECURITY_RATE\n"),
    ('(gross * Decimal("0.062"))', "(gross * SOCIAL_SECURITY_RATE)"),
    ('(gross * Decimal("0.093"))', "(gross * PENSION_RATE)"),
])
edit("payroll/report.py", [
    ("from payroll.deductions import", "from payroll.constants import PENSION_RATE, SOCIAL_SECURITY_RATE, STANDARD_WEEKLY_HOURS\nfrom payroll.deductions import"),
    ("def payslip_lines(name, hourly_rate, hours):\n",
     "def _percent(rate):\n    return f\"{rate * 100:.1f}%\"\n\n\ndef payslip_lines(name, hourly_rate, hours):\n"),
    ("(standard week: 40 h)", "(standard week: {STANDARD_WEEKLY_HOURS} h)"),
    ("Social security (6.2%)", "Social security ({_percent(SOCIAL_SECURITY_RATE)})"),
    ("Pension (9.3%)", "Pension ({_percent(PENSION_RATE)})"),
    ("Employer social security (6.2%)", "Employer social security ({_percent(SOCIAL_SECURITY_RATE)})"),
])
PY
python3 checks/run_checks.py
