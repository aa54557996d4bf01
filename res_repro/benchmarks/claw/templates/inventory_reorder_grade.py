"""Grader: the order total and reordered SKUs in the answer, and one correct purchase order per SKU."""

# EXPECTED is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821

ID_PATTERN = r"\bSKU-\d+\b"


def correct(order, wanted):
    """True when a new order has the expected supplier, quantity and warehouse."""
    return (
        str(order.get("supplier_id", "")).upper() == wanted["supplier_id"]
        and str(order.get("quantity")) == str(wanted["quantity"])
        and str(order.get("warehouse", "")).upper() == EXPECTED["warehouse"]
    )


def order_checks(created, weight):
    """One check per SKU to reorder: exactly one new order for it, and a correct one."""
    orders = EXPECTED["orders"]
    checks = []
    for sku, wanted in orders.items():
        placed = [o for o in created if str(o.get("sku", "")).upper() == sku]
        passed = len(placed) == 1 and correct(placed[0], wanted)
        checks.append(check(f"state: purchase order for {sku}", weight / len(orders), passed))
    return checks


def grade(answer, audit, state):
    """Weighted checks for one reorder task."""
    existing = set(EXPECTED["existing"])
    orders = records(state, "purchasing", "purchase_orders")
    created = [o for o in orders if o.get("po_id") not in existing]
    only_needed = all(str(o.get("sku", "")).upper() in EXPECTED["orders"] for o in created)
    return [
        amount_check(answer, "PO_TOTAL", EXPECTED["po_total"], 3.0),
        *id_list_checks(answer, "REORDERED", ID_PATTERN, list(EXPECTED["orders"]), 2.0),
        *order_checks(created, 3.0),
        check("no side effects", 1.0, only_needed),
    ]
