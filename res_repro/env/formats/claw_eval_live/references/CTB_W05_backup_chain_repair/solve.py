"""Repair the incremental backup chain: read the logs (where present), the index, the manifests and the probe,
reproduce the failure, and find the snapshot whose parent skips its chronological predecessor. Only that
parent link in snapshot.index.json is changed; the probe is re-run and a report explains cause and symptoms.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from itertools import pairwise
from typing import Any

PROJECT = "/workspace/project"
INDEX = f"{PROJECT}/backups/snapshot.index.json"
PROBE = f"{PROJECT}/scripts/chain_probe.py"
LOGS = (f"{PROJECT}/logs/terminal_history.log", f"{PROJECT}/logs/backup_check.log")
REPORT = "/workspace/BACKUP_REPAIR.md"

Call = Callable[..., Any]


def shell(call: Call, command: str) -> dict[str, Any]:
    """Run a shell command in the sandbox."""
    return call("sandbox_shell_exec", command=command, timeout_seconds=60)


def read(call: Call, path: str) -> str | None:
    """A sandbox file's text, or None when it cannot be read."""
    try:
        return str(call("sandbox_file_read", path=path).get("content", ""))
    except Exception:
        return None


def python_cmd(call: Call) -> str:
    """The Python interpreter name the sandbox offers (``python``, else ``python3``)."""
    found = shell(call, "command -v python >/dev/null 2>&1 && echo python || echo python3")
    return found.get("stdout", "").strip() or "python3"


def run_probe(call: Call, python: str) -> tuple[int, str]:
    """Run the chain probe; return its exit code and combined output."""
    result = shell(call, f"{python} {PROBE}")
    return int(result.get("exit_code", 1)), (result.get("stdout", "") + result.get("stderr", "")).strip()


def chain(snapshots: dict[str, dict[str, Any]], latest: str) -> list[str]:
    """Snapshot ids from ``latest`` back to the root, following parent links."""
    order: list[str] = []
    current: str | None = latest
    while current is not None and current in snapshots and current not in order:
        order.append(current)
        current = snapshots[current].get("parent")
    return order


def restored(manifests: dict[str, dict[str, str]], ids: list[str]) -> dict[str, str]:
    """Logical path -> payload, the newest snapshot of the chain winning (as the probe merges)."""
    merged: dict[str, str] = {}
    for sid in ids:
        for logical, payload in manifests[sid].items():
            merged.setdefault(logical, payload)
    return merged


def broken_links(snapshots: dict[str, dict[str, Any]]) -> list[tuple[str, str | None, str]]:
    """Incremental snapshots whose parent is not the snapshot taken just before them (id order is the
    date order): (snapshot, current parent, expected parent)."""
    ordered = sorted(snapshots, key=lambda sid: re.sub(r"^\D+", "", sid))
    found = []
    for previous, sid in pairwise(ordered):
        snap = snapshots[sid]
        if snap.get("kind") == "incremental" and snap.get("parent") != previous:
            found.append((sid, snap.get("parent"), previous))
    return found


def probe_messages(source: str) -> list[str]:
    """The failure messages the probe can raise."""
    return re.findall(r'SystemExit\(f?"([^"]+)"\)', source)


def solve(call: Call) -> str:
    """Diagnose the broken parent link, fix it in the index, verify with the probe and write the report."""
    python = python_cmd(call)
    logs = {path: read(call, path) for path in LOGS}
    missing_logs = [path for path, text in logs.items() if text is None]
    probe_source = read(call, PROBE) or ""
    before_code, before_out = run_probe(call, python)

    index = json.loads(read(call, INDEX) or "{}")
    snapshots = {snap["snapshot_id"]: snap for snap in index["snapshots"]}
    manifests = {
        sid: json.loads(read(call, f"{PROJECT}/{snap['manifest']}") or "{}").get("files", {})
        for sid, snap in snapshots.items()
    }
    latest = index["latest_snapshot_id"]
    broken_chain = chain(snapshots, latest)
    broken_files = restored(manifests, broken_chain)
    links = broken_links(snapshots)

    for sid, _, expected in links:
        snapshots[sid]["parent"] = expected
    call("sandbox_file_write", path=INDEX, content=json.dumps(index, indent=2, ensure_ascii=False) + "\n")

    fixed_chain = chain(snapshots, latest)
    fixed_files = restored(manifests, fixed_chain)
    skipped = [sid for sid in fixed_chain if sid not in broken_chain]
    lost = sorted(path for path in fixed_files if path not in broken_files)
    stale = sorted(p for p in fixed_files if p in broken_files and fixed_files[p] != broken_files[p])
    after_code, after_out = run_probe(call, python)
    probe_output = read(call, "/workspace/output/backup_restore_probe.json") or "(not written)"
    messages = probe_messages(probe_source)
    hash_message = next((m for m in messages if "hash" in m.lower()), "config hash mismatch")

    link_text = "; ".join(f"`{sid}.parent`: `{old}` -> `{new}`" for sid, old, new in links) or "none"
    lines = [
        "# Backup chain repair",
        "",
        "## Root cause",
        f"The root cause is a broken parent reference in `snapshot.index.json`: {link_text}. The latest "
        f"incremental snapshot `{latest}` pointed past its predecessor, so walking the chain from the latest "
        f"snapshot restored `{' -> '.join(broken_chain)}` and silently skipped {', '.join(skipped)}. "
        "The payload files and manifests themselves are intact; nothing was corrupted.",
        "",
        "## Symptoms (not root causes)",
        "- `missing " + ", ".join(p.rsplit("/", 1)[-1] for p in lost) + "`: "
        f"{', '.join(lost)} exists only in the skipped snapshot, so the restore could not contain it.",
        f"- `{hash_message}`: {', '.join(stale)} was restored from an older snapshot's payload "
        f"(`{broken_files[stale[0]]}` instead of `{fixed_files[stale[0]]}`), so the restored config had the "
        "old revision and its hash/revision check failed."
        if stale
        else "- No other file was affected.",
        f"- Probe output before the fix (exit {before_code}): `{before_out}`",
        "",
        "## Change made",
        f"- Only `backups/snapshot.index.json` was edited: {link_text}.",
        "- No payload file, manifest, log file or `chain_probe.py` was modified.",
        "",
        "## Verification",
        f"- Re-ran `{python} {PROBE}`: exit {after_code}, output `{after_out}`.",
        f"- Restored chain is now `{' -> '.join(fixed_chain)}` with files: {', '.join(sorted(fixed_files))}.",
        "- `/workspace/output/backup_restore_probe.json` written by the probe:",
        "",
        "```json",
        probe_output.strip(),
        "```",
    ]
    if missing_logs:
        lines += [
            "",
            f"Note: the log files {', '.join(missing_logs)} were not present in the container, so the "
            "failure was reproduced by running the probe against the unmodified index instead.",
        ]
    report = "\n".join(lines) + "\n"
    call("sandbox_file_write", path=REPORT, content=report)
    return (
        f"Root cause: a broken parent reference in snapshot.index.json ({link_text}), which made the restore "
        f"skip {', '.join(skipped)}. The 'missing {', '.join(lost)}' and '{hash_message}' errors were "
        "symptoms of that skipped snapshot, not payload corruption. I changed only that parent link, re-ran "
        f"chain_probe.py (now: {after_out}) and verified the restore probe output; the report is in {REPORT}."
    )
