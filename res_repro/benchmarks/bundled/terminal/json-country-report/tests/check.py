"""Recompute the per-country report from the (unmodified) users.json and compare."""
import hashlib
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


with open("/app/users.json", "rb") as f:
    raw = f.read()
if hashlib.sha256(raw).hexdigest() != open(os.path.join(HERE, "users.sha256")).read().strip():
    fail("/app/users.json was modified")
users = json.loads(raw)["users"]

groups = {}
for u in users:
    addr = u.get("address")
    country = addr.get("country") if isinstance(addr, dict) else None
    key = country.upper() if country else "unknown"
    cents = sum(round(o["total"] * 100) for o in (u.get("orders") or []) if o["status"] == "paid")
    groups.setdefault(key, []).append((u["id"], u["email"], u["active"] is True, cents))
want = {}
for key, members in groups.items():
    ranked = sorted((m for m in members if m[3] > 0), key=lambda m: (-m[3], m[0]))
    want[key] = {
        "users": len(members),
        "active_users": sum(1 for m in members if m[2]),
        "revenue_cents": sum(m[3] for m in members),
        "top_customer": ranked[0][1] if ranked else None,
    }

path = "/app/report.json"
if not os.path.isfile(path):
    fail(f"{path} is missing")
try:
    with open(path, encoding="utf-8") as f:
        got = json.load(f)
except ValueError as exc:
    fail(f"report is not valid JSON: {exc}")
if not isinstance(got, dict):
    fail("report is not a JSON object")
if set(got) != set(want):
    fail(f"keys differ: want {sorted(want)}, got {sorted(got)}")
for key in sorted(want):
    g, w = got[key], want[key]
    if not isinstance(g, dict) or set(g) != {"users", "active_users", "revenue", "top_customer"}:
        fail(f"{key}: value must be an object with exactly users, active_users, revenue, top_customer")
    for field in ("users", "active_users"):
        if type(g[field]) is not int or g[field] != w[field]:
            fail(f"{key}.{field}: got {g[field]!r}, want {w[field]}")
    rev = g["revenue"]
    if type(rev) not in (int, float) or abs(rev * 100 - w["revenue_cents"]) > 0.5:
        fail(f"{key}.revenue: got {rev!r}, want {w['revenue_cents'] / 100:.2f}")
    if round(rev, 2) != rev:
        fail(f"{key}.revenue: {rev!r} is not rounded to 2 decimals")
    if g["top_customer"] != w["top_customer"]:
        fail(f"{key}.top_customer: got {g['top_customer']!r}, want {w['top_customer']!r}")
print("OK")
