"""Helper functions imported by report.py."""

def add(a, b):
    return a + b
