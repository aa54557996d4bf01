"""Payslip text."""

from payroll.deductions import employer_social_security, net_pay, pension, social_security
from payroll.gross import gross_pay


def payslip_lines(name, hourly_rate, hours):
    gross = gross_pay(hourly_rate, hours)
    return [
        f"Employee: {name}",
        f"Hours: {hours} (standard week: 40 h)",
        f"Gross: {gross}",
        f"Social security (6.2%): {social_security(gross)}",
        f"Pension (9.3%): {pension(gross)}",
        f"Net: {net_pay(gross)}",
        f"Employer social security (6.2%): {employer_social_security(gross)}",
    ]
