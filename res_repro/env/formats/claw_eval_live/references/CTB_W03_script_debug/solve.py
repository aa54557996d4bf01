"""Repair the legacy data processor against its output contract: the status groups are read from the
contract's rules and written into a processor that accepts both field names for status, amount and
category, parses dollar strings and floats to cents and lower-cases owners. The three daily summaries are
regenerated and checked against an independent computation, plus an extra input with every field variant.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

PROJECT = "/workspace/project"
SCRIPT = f"{PROJECT}/data_processor.py"
CONTRACT = f"{PROJECT}/spec/output_contract.md"
OUTPUT = "/workspace/output"
CHANGELOG = "/workspace/CHANGELOG.md"

Call = Callable[..., Any]

PROCESSOR = '''#!/usr/bin/env python3
"""Daily data processor.

Accepts both the old and the new input schema (see spec/output_contract.md):
status/state, amount_cents/amount, category/category_name.
"""

from __future__ import annotations

import argparse
import json
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path


COMPLETED_STATUSES = {completed}
PENDING_STATUSES = {pending}
IGNORED_STATUSES = {ignored}


def load_payload(path: str) -> dict:
    with open(path) as f:
        return json.load(f)


def first_field(record: dict, *names: str):
    for name in names:
        if name in record and record[name] is not None:
            return record[name]
    raise KeyError(f"record {{record.get('id', '?')}} has none of {{', '.join(names)}}")


def normalize_status(record: dict) -> str:
    return str(first_field(record, "status", "state")).strip().lower()


def normalize_category(record: dict) -> str:
    return str(first_field(record, "category", "category_name")).strip().lower()


def normalize_owner(record: dict) -> str:
    return str(record.get("owner") or "").strip().lower()


def parse_amount_cents(record: dict) -> int:
    if record.get("amount_cents") is not None:
        return int(Decimal(str(record["amount_cents"]).strip()))
    raw = str(first_field(record, "amount")).strip().replace("$", "").replace(",", "")
    cents = Decimal(raw) * 100
    return int(cents.quantize(Decimal("1"), rounding=ROUND_HALF_UP))


def build_summary(payload: dict) -> dict:
    records = payload["records"]
    category_totals: dict[str, int] = {{}}
    owner_sequence: list[str] = []
    completed_count = 0
    pending_count = 0
    completed_total_cents = 0

    for record in records:
        status = normalize_status(record)
        if status in IGNORED_STATUSES:
            continue

        owner = normalize_owner(record)
        if owner and owner not in owner_sequence:
            owner_sequence.append(owner)

        if status in COMPLETED_STATUSES:
            amount_cents = parse_amount_cents(record)
            category = normalize_category(record)
            completed_count += 1
            completed_total_cents += amount_cents
            category_totals[category] = category_totals.get(category, 0) + amount_cents
        elif status in PENDING_STATUSES:
            pending_count += 1

    return {{
        "report_date": payload["date"],
        "completed_count": completed_count,
        "pending_count": pending_count,
        "completed_total_cents": completed_total_cents,
        "category_totals_cents": category_totals,
        "owner_sequence": owner_sequence,
    }}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True)
    args = parser.parse_args()

    payload = load_payload(args.input)
    summary = build_summary(payload)

    output_path = Path(args.output)
    output_path.parent.mkdir(parents=True, exist_ok=True)
    with output_path.open("w") as f:
        json.dump(summary, f, indent=2, sort_keys=True)


if __name__ == "__main__":
    main()
'''

# A record set that exercises every field variant the contract allows.
VARIANTS = {
    "date": "2026-01-01",
    "records": [
        {"id": "v1", "state": " Paid ", "amount": "$12.50", "category_name": " Storage ", "owner": " Zed "},
        {"id": "v2", "status": "settled", "amount": 12.5, "category": "storage", "owner": "amy"},
        {"id": "v3", "status": "RETRY", "amount_cents": "75", "category": "x", "owner": "zed"},
        {"id": "v4", "state": "cancelled", "amount": "1.00", "category": "x", "owner": "gone"},
        {"id": "v5", "status": "completed", "amount_cents": 5, "category": "Net", "owner": "Amy"},
    ],
}


def shell(call: Call, command: str) -> dict[str, Any]:
    """Run a shell command in the sandbox."""
    return call("sandbox_shell_exec", command=command, timeout_seconds=60)


def read(call: Call, path: str) -> str:
    """A sandbox file's text."""
    return str(call("sandbox_file_read", path=path).get("content", ""))


def status_groups(contract: str) -> dict[str, list[str]]:
    """'completed'/'pending'/'ignore' -> the raw statuses the contract assigns to that outcome."""
    groups: dict[str, list[str]] = {}
    for values, outcome in re.findall(r"^\s*-\s+((?:`\w+`\s*/?\s*)+)->\s*(.+)$", contract, re.M):
        names = re.findall(r"`(\w+)`", values)
        key = next((k for k in ("completed", "pending") if f"{k}_count" in outcome), None)
        if "ignore" in outcome.lower():
            key = "ignore"
        if key:
            groups[key] = names
    return groups


def expected_summary(payload: dict[str, Any], groups: dict[str, list[str]]) -> dict[str, Any]:
    """The contract's summary of ``payload``, computed independently of the script."""
    done, waiting, totals, owners, cents_total = 0, 0, {}, [], 0
    for rec in payload["records"]:
        status = str(rec.get("status", rec.get("state", ""))).strip().lower()
        if status in groups["ignore"]:
            continue
        owner = str(rec.get("owner", "")).strip().lower()
        if owner and owner not in owners:
            owners.append(owner)
        if status in groups["completed"]:
            if "amount_cents" in rec:
                cents = int(str(rec["amount_cents"]))
            else:
                cents = int((Decimal(str(rec["amount"]).lstrip("$")) * 100).to_integral_value(ROUND_HALF_UP))
            category = str(rec.get("category", rec.get("category_name", ""))).strip().lower()
            totals[category] = totals.get(category, 0) + cents
            done, cents_total = done + 1, cents_total + cents
        elif status in groups["pending"]:
            waiting += 1
    return {
        "report_date": payload["date"],
        "completed_count": done,
        "pending_count": waiting,
        "completed_total_cents": cents_total,
        "category_totals_cents": totals,
        "owner_sequence": owners,
    }


def python_cmd(call: Call) -> str:
    """The Python interpreter name the sandbox offers (``python``, else ``python3``)."""
    found = shell(call, "command -v python >/dev/null 2>&1 && echo python || echo python3")
    return found.get("stdout", "").strip() or "python3"


def run(call: Call, python: str, source: str, target: str) -> dict[str, Any]:
    """Run the processor through its CLI."""
    return shell(call, f"{python} {SCRIPT} --input {shlex.quote(source)} --output {shlex.quote(target)}")


def solve(call: Call) -> str:
    """Fix the processor, regenerate the summaries, verify them and write the changelog."""
    python = python_cmd(call)
    before_source = read(call, SCRIPT)
    old_fields = sorted(set(re.findall(r'record\["(\w+)"\]', before_source)))
    contract = read(call, CONTRACT)
    groups = status_groups(contract)
    days = sorted(
        line.strip()
        for line in shell(call, f"ls {PROJECT}/data/*.json")["stdout"].splitlines()
        if line.strip()
    )
    before = run(call, python, days[0], "/tmp/before.json")
    before_error = (before.get("stderr", "").strip().splitlines() or ["no error"])[-1]

    def literal(names: list[str]) -> str:
        return "{" + ", ".join(json.dumps(n) for n in names) + "}"

    fixed = PROCESSOR.format(
        completed=literal(groups["completed"]),
        pending=literal(groups["pending"]),
        ignored=literal(groups["ignore"]),
    )
    call("sandbox_file_write", path=SCRIPT, content=fixed)
    compiled = shell(call, f"{python} -m py_compile {SCRIPT} && echo SYNTAX_OK")
    syntax = compiled.get("stdout", "").strip() or "failed"

    results: list[str] = []
    all_ok = True
    for day in days:
        name = day.rsplit("/", 1)[-1].removesuffix(".json")
        target = f"{OUTPUT}/{name}_summary.json"
        done = run(call, python, day, target)
        actual = json.loads(read(call, target)) if done.get("exit_code") == 0 else None
        ok = actual == expected_summary(json.loads(read(call, day)), groups)
        all_ok &= ok
        results.append(f"- `{target}`: {'matches' if ok else 'DIFFERS from'} the hand computation: {actual}")
    call("sandbox_file_write", path="/tmp/variants.json", content=json.dumps(VARIANTS))
    run(call, python, "/tmp/variants.json", "/tmp/variants_summary.json")
    variant_ok = json.loads(read(call, "/tmp/variants_summary.json")) == expected_summary(VARIANTS, groups)

    changelog = "\n".join(
        [
            "# CHANGELOG - data_processor.py",
            "",
            "## Root cause",
            "The processor still assumed the old input schema: it read the fields "
            f"{', '.join(f'`{name}`' for name in old_fields)} by their old names only, so records using "
            f"`state`, `category_name` or `amount` crashed it (first run: `{before_error}`). It also knew "
            "only one spelling per status, kept owner case (`Alice` vs `alice` counted twice) and could not "
            "parse dollar amounts.",
            "",
            "## Fix",
            "- Status read from `status` or `state`, trimmed and lower-cased; groups from the contract: "
            f"completed = {', '.join(groups['completed'])}; pending = {', '.join(groups['pending'])}; "
            f"ignored = {', '.join(groups['ignore'])}.",
            "- Amount read from `amount_cents` (int or string) or `amount` (`12.50`, `$12.50`, `12.5`), "
            "converted to integer cents with half-up rounding (Decimal, no float error).",
            "- Category read from `category` or `category_name`, normalized with strip + lowercase; owner "
            "normalized with strip + lowercase; `owner_sequence` deduplicated in first-occurrence order over "
            "non-ignored records; category totals only for completed records.",
            "- CLI (`--input`, `--output`) and output fields unchanged; input data and contract untouched.",
            "",
            "## Verification",
            f"- `{python} -m py_compile data_processor.py`: {syntax}.",
            "- Regenerated the three summaries and compared each with an independent computation from the "
            "contract rules:",
            *results,
            "- Ran an extra input covering every field variant (state/status, $-amount, float amount, "
            f"category_name, cancelled, mixed-case owners): {'matches' if variant_ok else 'DIFFERS'}.",
        ]
    )
    call("sandbox_file_write", path=CHANGELOG, content=changelog + "\n")
    verdict = "all match" if all_ok and variant_ok else "some differ"
    return (
        "Root cause: data_processor.py still assumed the old schema (only status/category/amount_cents, one "
        f"status spelling, case-sensitive owners, no dollar parsing) and crashed with '{before_error}'. "
        "Fix: accept status/state, amount_cents/amount (12.50, $12.50, 12.5 -> cents), "
        "category/category_name (strip + lowercase), lower-cased owners with first-occurrence dedup, "
        f"status groups per the contract (completed: {', '.join(groups['completed'])}; pending: "
        f"{', '.join(groups['pending'])}; ignored: {', '.join(groups['ignore'])}). Verified: py_compile "
        f"{syntax}, the 3 summaries in {OUTPUT} and an extra variant input checked against an independent "
        f"computation ({verdict}). Details in {CHANGELOG}."
    )
