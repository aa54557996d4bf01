"""Payroll calculations for hourly staff."""
