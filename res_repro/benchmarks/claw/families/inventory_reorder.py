"""Inventory reorder: order the items of one warehouse whose stock plus open orders is below reorder point.

Planted cases: low items with no order, with an open order too small to cover them, with only received
or cancelled orders, or with an open order for another warehouse; low items covered by an open order;
a discontinued low item; healthy items; and other warehouses' low stock.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from res_repro.benchmarks.claw.common import (
    answer_format,
    domain_for,
    draft,
    get_tool,
    integer,
    iso,
    list_tool,
    money,
    shift,
    string,
    unique_ids,
    write_tool,
)
from res_repro.benchmarks.generated import ToolTaskDraft
from res_repro.env.formats.tool_api import ToolDef

FAMILY = "inventory-reorder"
WAREHOUSES = ["WH-EAST", "WH-WEST", "WH-NORTH"]
PRODUCTS = [
    "Pallet wrap 500mm", "Nitrile gloves (M)", "Shipping labels 4x6", "Corrugated box 40cm",
    "Packing tape 48mm", "Bubble mailer A4", "Safety vest (L)", "Cable ties 200mm", "Thermal ribbon",
    "Void fill paper", "Stretch film 23mic", "Foam corners", "Desiccant packs", "Strapping band",
]  # fmt: skip
SUPPLIERS = ["Packwell Industrial", "Crate & Co", "Uniline Supply", "Eastgate Wholesale"]
REORDER_KINDS = ["plain", "short_order", "dead_orders", "elsewhere_order"]


@dataclass
class Stockroom:
    """Items, stock levels and purchase orders being generated."""

    rng: random.Random
    warehouse: str
    today: date
    suppliers: list[dict[str, Any]]
    skus: list[str]
    items: list[dict[str, Any]] = field(default_factory=list)
    stock: list[dict[str, Any]] = field(default_factory=list)
    orders: list[dict[str, Any]] = field(default_factory=list)

    def item(self, name: str, status: str = "active") -> dict[str, Any]:
        """A new catalogue item."""
        record = {
            "sku": self.skus.pop(),
            "name": name,
            "status": status,
            "reorder_point": self.rng.randrange(20, 121, 5),
            "reorder_qty": self.rng.choice([50, 100, 150, 200, 250]),
            "unit_cost": money(self.rng.randint(150, 9_000)),
            "preferred_supplier_id": self.rng.choice(self.suppliers)["supplier_id"],
        }
        self.items.append(record)
        return record

    def level(self, item: dict[str, Any], on_hand: int, warehouse: str | None = None) -> None:
        """The item's on-hand quantity in a warehouse (the task's by default)."""
        self.stock.append({"sku": item["sku"], "warehouse": warehouse or self.warehouse, "on_hand": on_hand})

    def order(self, item: dict[str, Any], quantity: int, status: str, warehouse: str | None = None) -> None:
        """A purchase order for the item."""
        self.orders.append(
            {
                "sku": item["sku"],
                "warehouse": warehouse or self.warehouse,
                "supplier_id": item["preferred_supplier_id"],
                "quantity": quantity,
                "status": status,
                "ordered_on": iso(shift(self.today, -self.rng.randint(2, 30))),
            }
        )

    def low(self, item: dict[str, Any], kind: str) -> None:
        """Stock below the reorder point, with the orders that ``kind`` names."""
        point = item["reorder_point"]
        on_hand = self.rng.randint(0, point // 2)
        self.level(item, on_hand)
        if kind == "short_order":
            self.order(item, self.rng.randint(1, point - on_hand - 1), "open")
        elif kind == "dead_orders":
            self.order(item, item["reorder_qty"], self.rng.choice(["received", "cancelled"]))
        elif kind == "elsewhere_order":
            other = self.rng.choice([w for w in WAREHOUSES if w != self.warehouse])
            self.order(item, item["reorder_qty"], "open", warehouse=other)
        elif kind == "covered":
            self.order(item, point - on_hand + self.rng.randint(0, 40), "open")


def _stockroom(rng: random.Random) -> Stockroom:
    warehouse = rng.choice(WAREHOUSES)
    names = rng.sample(SUPPLIERS, len(SUPPLIERS))
    suppliers = [
        {"supplier_id": i, "name": name, "email": f"orders@{domain_for(name)}"}
        for i, name in zip(unique_ids(rng, "SUP", len(names), 3), names, strict=True)
    ]
    today = date(2024, rng.randint(1, 12), rng.randint(1, 28))
    room = Stockroom(rng, warehouse, today, suppliers, unique_ids(rng, "SKU", 14, 4))
    products = rng.sample(PRODUCTS, 14)
    kinds = rng.sample(REORDER_KINDS, rng.randint(2, 4)) + ["covered"] * rng.randint(1, 2)
    for kind in kinds:
        room.low(room.item(products.pop()), kind)
    room.level(room.item(products.pop(), status="discontinued"), 0)
    for _ in range(rng.randint(3, 5)):
        item = room.item(products.pop())
        room.level(item, item["reorder_point"] + rng.randint(0, 150))
    for item in rng.sample(room.items, 4):
        other = rng.choice([w for w in WAREHOUSES if w != warehouse])
        room.level(item, rng.randint(0, item["reorder_point"] - 1), warehouse=other)
    return room


def _truth(room: Stockroom) -> dict[str, Any]:
    """The items to reorder and their orders, by the prompt's rules."""
    items = {i["sku"]: i for i in room.items}
    orders: dict[str, dict[str, Any]] = {}
    total = 0
    for level in room.stock:
        item = items[level["sku"]]
        if level["warehouse"] != room.warehouse or item["status"] != "active":
            continue
        incoming = sum(
            o["quantity"]
            for o in room.orders
            if o["sku"] == item["sku"] and o["warehouse"] == room.warehouse and o["status"] == "open"
        )
        if level["on_hand"] + incoming < item["reorder_point"]:
            orders[item["sku"]] = {
                "supplier_id": item["preferred_supplier_id"],
                "quantity": item["reorder_qty"],
            }
            total += item["reorder_qty"] * round(item["unit_cost"] * 100)
    return {
        "po_total": money(total),
        "orders": orders,
        "warehouse": room.warehouse,
        "existing": [o["po_id"] for o in room.orders],
    }


def _tools() -> list[ToolDef]:
    order_properties = {
        "sku": string("the item's SKU"),
        "warehouse": string("the warehouse to deliver to"),
        "supplier_id": string("the supplier to order from"),
        "quantity": integer("units to order"),
    }
    return [
        list_tool(
            "list_stock",
            "List on-hand quantities per SKU and warehouse.",
            "inventory",
            "stock",
            {"warehouse": "the warehouse code, e.g. WH-EAST"},
            ["warehouse"],
        ),
        get_tool(
            "get_item",
            "Get a catalogue item: status, reorder_point, reorder_qty, unit_cost, preferred_supplier_id.",
            "inventory",
            "items",
            "sku",
        ),
        list_tool(
            "list_purchase_orders",
            "List purchase orders, optionally by warehouse, SKU and status (open, received, cancelled).",
            "purchasing",
            "purchase_orders",
            {"warehouse": "optional warehouse code", "sku": "optional SKU", "status": "optional status"},
            [],
        ),
        get_tool(
            "get_supplier", "Get a supplier's name and order email.", "purchasing", "suppliers", "supplier_id"
        ),
        write_tool(
            "create",
            "create_purchase_order",
            "Place a new purchase order (it starts with status open).",
            "purchasing",
            "purchase_orders",
            "po_id",
            order_properties,
            list(order_properties),
        ),
    ]


def _prompt(warehouse: str) -> str:
    return (
        f"Run the reorder check for warehouse {warehouse}. An active item needs reordering when its on-hand "
        f"quantity in {warehouse} plus the quantities of its open purchase orders for {warehouse} is below "
        "its reorder_point; received or cancelled orders and orders for other warehouses do not count, and "
        "discontinued items are never reordered. For each item that needs it, create one purchase order "
        f"to its preferred supplier for its reorder_qty, delivered to {warehouse}. Place no other "
        "orders.\n\n"
        + answer_format(
            "PO_TOTAL: <total cost of the new orders (quantity times unit_cost), two decimals>",
            "REORDERED: <comma-separated SKUs you ordered>",
        )
    )


def generate(rng: random.Random, index: int) -> ToolTaskDraft:
    """One reorder task with its own warehouse, catalogue, stock levels and orders."""
    room = _stockroom(rng)
    room.stock.sort(key=lambda s: (s["warehouse"], s["sku"]))
    room.items.sort(key=lambda i: i["sku"])
    rng.shuffle(room.orders)
    room.orders = [
        {"po_id": i, **o} for i, o in zip(unique_ids(rng, "PO", len(room.orders)), room.orders, strict=True)
    ]
    fixtures = {
        "inventory": {"items": room.items, "stock": room.stock},
        "purchasing": {"suppliers": room.suppliers, "purchase_orders": room.orders},
    }
    expected = _truth(room)
    return draft(
        FAMILY, index, _prompt(room.warehouse), _tools(), fixtures, {"warehouse": room.warehouse}, expected
    )
