#!/bin/bash
set -euo pipefail
cd /app
python3 - <<'PY'
import ast

src = open("app/utils.py").read()
tree = ast.parse(src)
lines = src.splitlines(keepends=True)
chunk = {}
for node in tree.body:
    if isinstance(node, (ast.FunctionDef, ast.Assign)):
        name = node.name if isinstance(node, ast.FunctionDef) else node.targets[0].id
        chunk[name] = "".join(lines[node.lineno - 1:node.end_lineno])

modules = {
    "app/textutil.py": ('"""Text helpers."""\n\nimport re\nimport unicodedata\n',
                        ["_SPACES", "_clean", "slugify", "normalize_whitespace", "truncate"]),
    "app/timeutil.py": ('"""Date helpers."""\n\nfrom datetime import datetime, timedelta\n',
                        ["parse_date", "business_days_between", "quarter_of"]),
    "app/money.py": ('"""Money helpers."""\n\nfrom decimal import ROUND_HALF_UP, Decimal\n',
                     ["format_eur", "parse_amount"]),
}
for path, (header, names) in modules.items():
    body = header
    for name in names:
        body += ("\n" if name == "_SPACES" else "\n\n") + chunk[name]
    open(path, "w").write(body)
# legacy_slug and today() have no callers: deleted, not moved.

def rewrite(path, old, new):
    text = open(path).read()
    assert old in text, (path, old)
    open(path, "w").write(text.replace(old, new))


rewrite("app/catalog.py", "from app.utils import format_eur, parse_amount, slugify",
        "from app.money import format_eur, parse_amount\nfrom app.textutil import slugify")
orders = open("app/orders.py").read()
orders = orders.replace("from app import utils", "from app import money, timeutil")
orders = orders.replace("utils.parse_date", "timeutil.parse_date").replace(
    "utils.business_days_between", "timeutil.business_days_between").replace("utils.format_eur", "money.format_eur")
open("app/orders.py", "w").write(orders)
rewrite("app/reports.py", "from app.utils import normalize_whitespace as tidy\nfrom app.utils import quarter_of, truncate",
        "from app.textutil import normalize_whitespace as tidy\nfrom app.textutil import truncate\nfrom app.timeutil import quarter_of")
PY
rm app/utils.py
python3 -m unittest discover -s tests
