#!/bin/bash
set -euo pipefail
git clone -q /app/repo.bundle /app/repo
cd /app/repo
export GIT_AUTHOR_NAME="Merge Bot" GIT_AUTHOR_EMAIL="merge-bot@example.com"
export GIT_COMMITTER_NAME="Merge Bot" GIT_COMMITTER_EMAIL="merge-bot@example.com"
git checkout -q main
if git merge --no-ff --no-edit origin/feature/discounts; then
  echo "expected a conflict" >&2
fi
cat > pricing.py <<'PY'
"""Price calculations for the shop."""

from decimal import ROUND_HALF_UP, Decimal

TAX_RATE = Decimal("0.20")
CENT = Decimal("0.01")


def final_price(amount, discount=0.0):
    """Return the gross price of a net amount after a fractional discount, including tax,
    rounded half-up to cents."""
    discount = Decimal(str(discount))
    if not 0 <= discount < 1:
        raise ValueError("discount must be at least 0 and below 1")
    gross = Decimal(str(amount)) * (1 - discount) * (1 + TAX_RATE)
    return gross.quantize(CENT, rounding=ROUND_HALF_UP)
PY
python3 - <<'PY'
import re
text = open("CHANGELOG.md").read()
text = re.sub(r"<<<<<<< [^\n]*\n(.*?)=======\n(.*?)>>>>>>> [^\n]*\n", r"\1\2", text, flags=re.S)
open("CHANGELOG.md", "w").write(text)
PY
git add pricing.py CHANGELOG.md
python3 -m unittest discover -s tests -t . 2>&1 | tail -1
git commit -q --no-edit
