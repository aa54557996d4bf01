"""Repair the local full-stack dev configuration: README_DEV.md states the current dev contract and the
old layout it replaced, and the stack check names every value it requires. The stale values (old port,
old API path, external sessions, prod profile) in backend.env, frontend/.env.local and dev_proxy.json are
set to the contract's, each cross-checked against the README; the check is re-run and a report written.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

PROJECT = "/workspace/project"
README = f"{PROJECT}/README_DEV.md"
BACKEND = f"{PROJECT}/config/backend.env"
FRONTEND = f"{PROJECT}/frontend/.env.local"
PROXY = f"{PROJECT}/proxy/dev_proxy.json"
LOG = f"{PROJECT}/logs/dev_boot.log"
CHECK = f"{PROJECT}/scripts/check_dev_stack.py"
STATUS = "/workspace/output/dev-stack/dev_stack_status.json"
REPORT = "/workspace/DEV_ENV_FIX.md"

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


def run_check(call: Call, python: str) -> tuple[int, str]:
    """Run the dev stack check; return its exit code and combined output."""
    result = shell(call, f"{python} {CHECK}")
    return int(result.get("exit_code", 1)), (result.get("stdout", "") + result.get("stderr", "")).strip()


def parse_env(text: str) -> dict[str, str]:
    """KEY=VALUE lines of an env file."""
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    return {key.strip(): value.strip() for key, value in pairs}


def set_env(text: str, values: dict[str, str]) -> str:
    """The env file with ``values`` applied in place; keys it lacks are appended."""
    out, seen = [], set()
    for line in text.splitlines():
        key = line.split("=", 1)[0].strip() if "=" in line else None
        if key in values:
            out.append(f"{key}={values[key]}")
            seen.add(key)
        else:
            out.append(line)
    out += [f"{key}={value}" for key, value in values.items() if key not in seen]
    return "\n".join(out) + "\n"


def required(source: str, name: str) -> dict[str, Any]:
    """``name.get("K") == V`` conditions of the check script (V a string or number literal)."""
    found = re.findall(rf'{name}\.get\("([^"]+)"\)\s*==\s*("[^"]*"|\d+)', source)
    return {key: json.loads(value) for key, value in found}


def contract(readme: str) -> set[str]:
    """Every backticked value of the README's current contract (before the migration note)."""
    current = readme.split("migrated off", 1)[0]
    return set(re.findall(r"`([^`]+)`", current))


def old_layout(readme: str) -> list[str]:
    """The old-stack values the README says must not come back."""
    older = readme.split("migrated off", 1)[-1]
    return re.findall(r"^- (.+)$", older, re.M)


def new_layout(readme: str) -> list[str]:
    """The points of the README's current dev contract (nested bullets joined to their parent)."""
    points: list[str] = []
    for indent, text in re.findall(r"^( *)- (.+)$", readme.split("migrated off", 1)[0], re.M):
        if indent and points:
            points[-1] += (" " if points[-1].endswith(":") else ", ") + text
        else:
            points.append(text)
    return points


def assignments(values: dict[str, Any]) -> str:
    """KEY=value, ... for the answer."""
    return ", ".join(f"{key}={value}" for key, value in values.items())


def endorsed(value: Any, allowed: set[str]) -> bool:
    """Whether every part of a required value (scheme, host, port, path) appears in the README's contract."""
    parts = [part for part in re.split(r"[:/]+", str(value)) if part]
    return all(any(part in item for item in allowed) for part in parts)


def changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """`KEY: old -> new` for every value that changed or was added."""
    return [
        f"`{key}`: `{before.get(key, '(missing)')}` -> `{value}`"
        for key, value in after.items()
        if before.get(key) != value
    ]


def solve(call: Call) -> str:
    """Fix the three dev config files to the README contract, verify with the check, write the report."""
    python = python_cmd(call)
    readme = read(call, README) or ""
    log = read(call, LOG)
    source = read(call, CHECK) or ""
    backend_text = read(call, BACKEND) or ""
    frontend_text = read(call, FRONTEND)
    proxy = json.loads(read(call, PROXY) or "{}")
    code_before, out_before = run_check(call, python)

    allowed = contract(readme)
    need_backend = required(source, "backend")
    need_frontend = required(source, "frontend")
    need_proxy = required(source, "proxy")
    need_routes = required(source, "routes")
    unendorsed = [
        f"{k}={v}"
        for k, v in {**need_backend, **need_frontend, **need_proxy, **need_routes}.items()
        if not endorsed(v, allowed)
    ]

    backend_before = parse_env(backend_text)
    frontend_before = parse_env(frontend_text or "")
    proxy_before = {**proxy, **{f"routes[{k}]": v for k, v in (proxy.get("routes") or {}).items()}}
    call(
        "sandbox_file_write",
        path=BACKEND,
        content=set_env(backend_text, {k: str(v) for k, v in need_backend.items()}),
    )
    call(
        "sandbox_file_write",
        path=FRONTEND,
        content=set_env(frontend_text or "", {k: str(v) for k, v in need_frontend.items()}),
    )
    proxy.update(need_proxy)
    proxy.setdefault("routes", {}).update(need_routes)
    call("sandbox_file_write", path=PROXY, content=json.dumps(proxy, indent=2) + "\n")
    proxy_after = {**proxy, **{f"routes[{k}]": v for k, v in proxy["routes"].items()}}
    proxy_after.pop("routes")
    code_after, out_after = run_check(call, python)
    status = read(call, STATUS) or "(not written)"

    olds = old_layout(readme)
    failures = [line[2:] for line in out_before.splitlines() if line.startswith("- ")]
    lines = [
        "# Dev environment fix",
        "",
        "## Root cause",
        "The root cause is not a crashed service but an incomplete migration: README_DEV.md says the repo "
        f"was migrated off an older local stack ({'; '.join(olds)}), yet the three config files still mixed "
        f"that old layout with the new local dev contract ({'; '.join(new_layout(readme))}). Each component "
        "therefore pointed at a different port, path or auth mode.",
        "",
        "## Downstream symptoms (not root causes)",
        "- the frontend calling the old API origin/path and sending logins to the external auth provider;",
        "- the proxy listening on the wrong port and forwarding /api, /auth and the websocket to the old "
        "backend port;",
        "- the backend booting with a non-dev profile, the old port and path and a database host that is not "
        "the dev one.",
    ]
    if failures:
        lines.append(f"- the stack check before the fix (exit {code_before}) reported:")
        lines += [f"  - {failure}" for failure in failures]
    else:
        last = out_before.splitlines()[-1] if out_before else "no output"
        lines.append(f"- the stack check before the fix (exit {code_before}) failed with: `{last}`")
    lines += ["", "## Values changed", "", "`config/backend.env`:"]
    lines += [f"- {c}" for c in changed(backend_before, {k: str(v) for k, v in need_backend.items()})]
    lines += [
        "",
        "`frontend/.env.local`"
        + (" (was missing; created at its documented path):" if frontend_text is None else ":"),
    ]
    lines += [f"- {c}" for c in changed(frontend_before, {k: str(v) for k, v in need_frontend.items()})]
    lines += ["", "`proxy/dev_proxy.json`:"]
    lines += [f"- {c}" for c in changed(proxy_before, proxy_after)]
    lines += [
        "",
        "APP_MODE stays a local dev profile (`dev`), not production; no service was added and "
        "check_dev_stack.py, the README and logs are unchanged.",
        "",
        "## Verification",
        "- Every required value was cross-checked against README_DEV.md's contract"
        + (f" (not found there: {', '.join(unendorsed)})." if unendorsed else " (all found there)."),
        f"- Re-ran `{python} {CHECK}`: exit {code_after}, output `{out_after}`.",
        f"- `{STATUS}`:",
        "",
        "```json",
        status.strip(),
        "```",
    ]
    if log is None:
        lines += [
            "",
            f"Note: {LOG} was not present in the container, so the failure chain was taken from "
            "README_DEV.md and the stack check's output.",
        ]
    call("sandbox_file_write", path=REPORT, content="\n".join(lines) + "\n")
    return (
        f"Root cause: an incomplete migration from the old local stack ({'; '.join(olds)}) to the README's "
        "dev contract; backend, frontend and proxy configs were left inconsistent, and the port/path/auth "
        f"mismatches are symptoms. backend.env now has {assignments(need_backend)}; frontend/.env.local "
        f"{assignments(need_frontend)}; dev_proxy.json {assignments({**need_proxy, **need_routes})}. "
        f"Verified: check_dev_stack.py prints '{out_after}'. Report: {REPORT}."
    )
