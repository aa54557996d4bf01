"""Order management helpers."""
