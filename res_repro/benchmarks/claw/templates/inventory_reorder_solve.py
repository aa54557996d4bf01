"""Reference program: reorder the active items whose stock plus open orders is below reorder point."""

# TARGET is defined by the task's constants; the shared helpers are appended after this program.
# ruff: noqa: F821


def incoming(call, warehouse, sku):
    """Units on open purchase orders of ``sku`` for ``warehouse``."""
    orders = items(call("list_purchase_orders", warehouse=warehouse, sku=sku, status="open"))
    return sum(int(order["quantity"]) for order in orders)


def solve(call):
    """Place the needed purchase orders and report."""
    call = retrying(call)
    warehouse = TARGET["warehouse"]
    ordered, total = [], 0
    for level in items(call("list_stock", warehouse=warehouse)):
        item = call("get_item", sku=level["sku"])
        if item["status"] != "active":
            continue
        if level["on_hand"] + incoming(call, warehouse, item["sku"]) >= item["reorder_point"]:
            continue
        call(
            "create_purchase_order",
            sku=item["sku"],
            warehouse=warehouse,
            supplier_id=item["preferred_supplier_id"],
            quantity=item["reorder_qty"],
        )
        ordered.append(item["sku"])
        total += item["reorder_qty"] * cents(item["unit_cost"])
    return f"PO_TOTAL: {money(total)}\nREORDERED: {', '.join(ordered)}"
