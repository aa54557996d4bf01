#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
import json
from decimal import Decimal

with open("users.json", encoding="utf-8") as f:
    users = json.load(f)["users"]

groups = {}
for u in users:
    address = u.get("address") or {}
    country = address.get("country")
    key = country.upper() if country else "unknown"
    paid = sum((Decimal(str(o["total"])) for o in u.get("orders") or [] if o.get("status") == "paid"), Decimal("0"))
    groups.setdefault(key, []).append((u, paid))

report = {}
for key, members in sorted(groups.items()):
    best = None
    for u, paid in members:
        if paid > 0 and (best is None or paid > best[1] or (paid == best[1] and u["id"] < best[0]["id"])):
            best = (u, paid)
    report[key] = {
        "users": len(members),
        "active_users": sum(1 for u, _ in members if u.get("active") is True),
        "revenue": float(round(sum((p for _, p in members), Decimal("0")), 2)),
        "top_customer": best[0]["email"] if best else None,
    }

with open("report.json", "w", encoding="utf-8") as f:
    json.dump(report, f, indent=2)
    f.write("\n")
PY
