"""Repair the compose stack after its half-done migration: run the pre-deploy check to see what fails, read
the target topology (env values, api host:port, gateway port, worker queue and dependency condition) from
the check's own requirements, and move every stale reference to the old endpoint in the compose file,
deploy.env and gateway.conf to it with in-place text edits. The check is re-run and a report is written.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

PROJECT = "/workspace/project"
COMPOSE = f"{PROJECT}/docker-compose.yaml"
ENV_FILE = f"{PROJECT}/config/deploy.env"
GATEWAY = f"{PROJECT}/config/gateway.conf"
CHECK = f"{PROJECT}/scripts/check_stack.py"
LOG = f"{PROJECT}/logs/deploy.log"
STATUS = "/workspace/output/stack/stack_status.json"
REPORT = "/workspace/DEPLOY_FIX.md"

Call = Callable[..., Any]


@dataclass
class Target:
    """The topology the pre-deploy check requires."""

    env: dict[str, str]
    health: str  # e.g. localhost:8080/healthz
    api_url: str  # the worker's API URL
    queue: str
    condition: str  # worker -> api depends_on condition
    ports: list[str]  # gateway port mappings
    server: str  # gateway upstream server host:port
    listen: str
    proxy_pass: str


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
    """Run the pre-deploy check; return its exit code and combined output."""
    result = shell(call, f"{python} {CHECK}")
    return int(result.get("exit_code", 1)), (result.get("stdout", "") + result.get("stderr", "")).strip()


def requirements(source: str) -> Target:
    """The values the check script insists on, read from its require() conditions."""

    def one(pattern: str) -> str:
        return re.search(pattern, source).group(1)

    needles = re.findall(r'require\("([^"]+)" in worker_command', source)
    return Target(
        env=dict(re.findall(r'env\.get\("(\w+)"\) == "([^"]*)"', source)),
        health=one(r'"([^"]*/healthz)" in api_hc'),
        api_url=next(n for n in needles if "://" in n),
        queue=next(n for n in needles if "://" not in n),
        condition=one(r'worker_dep\.get\("condition"\) == "(\w+)"'),
        ports=ast.literal_eval(one(r"gateway_ports == (\[[^\]]*\])")),
        server=one(r'r"server\\s\+([^;"]+);"'),
        listen=one(r'r"listen\\s\+(\d+);"'),
        proxy_pass=one(r'"(proxy_pass [^"]+;)" in gateway'),
    )


def service_block(text: str, name: str) -> tuple[int, int]:
    """Start and end offsets of a top-level service block in the compose text."""
    start = re.search(rf"^  {name}:\n", text, re.M).end()
    following = re.compile(r"^  \S", re.M).search(text, start)
    return start, following.start() if following else len(text)


def edit_block(text: str, name: str, edit: Callable[[str], str]) -> str:
    """Apply ``edit`` to one service's block only."""
    start, end = service_block(text, name)
    return text[:start] + edit(text[start:end]) + text[end:]


def fix_compose(text: str, target: Target) -> str:
    """Point the healthcheck, worker command/dependency and gateway ports at the new topology."""
    text = edit_block(text, "api", lambda b: re.sub(r"localhost:\d+/healthz", target.health, b))

    def worker(block: str) -> str:
        block = re.sub(r'("--queue",\s*")[^"]*(")', rf"\g<1>{target.queue}\g<2>", block)
        block = re.sub(r'"https?://[^"]*"', f'"{target.api_url}"', block)
        return re.sub(r"(condition:\s*)\S+", rf"\g<1>{target.condition}", block)

    text = edit_block(text, "worker", worker)
    ports = "".join(f'      - "{port}"\n' for port in target.ports)
    port_list = re.compile(r"(    ports:\n)(?:      - .*\n)+")
    return edit_block(text, "gateway", lambda b: port_list.sub(rf"\g<1>{ports}", b))


def fix_env(text: str, values: dict[str, str]) -> str:
    """deploy.env with the required values set in place."""
    out = []
    for line in text.splitlines():
        key = line.split("=", 1)[0].strip() if "=" in line else None
        out.append(f"{key}={values[key]}" if key in values else line)
    return "\n".join(out) + "\n"


def fix_gateway(text: str, target: Target) -> str:
    """gateway.conf with the upstream server, listen port and proxy_pass of the new topology."""
    text = re.sub(r"server\s+[^;]+;", f"server {target.server};", text, count=1)
    text = re.sub(r"listen\s+\d+;", f"listen {target.listen};", text)
    return re.sub(r"proxy_pass\s+[^;]+;", target.proxy_pass, text)


def old_endpoint(compose: str, gateway: str) -> str:
    """host:port the stale configuration still points at (the gateway's upstream server)."""
    found = re.search(r"server\s+([^;]+);", gateway) or re.search(r"https?://([\w.-]+:\d+)", compose)
    return found.group(1).strip()


def diff(before: dict[str, str], after: dict[str, str]) -> list[str]:
    """Changed lines per file, as `old` -> `new` bullet points."""
    lines = []
    for path, old in before.items():
        name = path.removeprefix(PROJECT + "/")
        for a, b in zip(old.splitlines(), after[path].splitlines(), strict=False):
            if a != b:
                lines.append(f"- `{name}`: `{a.strip()}` -> `{b.strip()}`")
    return lines


def solve(call: Call) -> str:
    """Diagnose the incomplete migration, fix the three config files, verify and write the report."""
    python = python_cmd(call)
    log = read(call, LOG)
    before = {path: read(call, path) or "" for path in (COMPOSE, ENV_FILE, GATEWAY)}
    check_source = read(call, CHECK) or ""
    code_before, out_before = run_check(call, python)
    failures = [line[2:] for line in out_before.splitlines() if line.startswith("- ")]

    target = requirements(check_source)
    old = old_endpoint(before[COMPOSE], before[GATEWAY])
    new = target.api_url.split("://", 1)[-1]
    after = {
        COMPOSE: fix_compose(before[COMPOSE], target),
        ENV_FILE: fix_env(before[ENV_FILE], target.env),
        GATEWAY: fix_gateway(before[GATEWAY], target),
    }
    for path, text in after.items():
        if text != before[path]:
            call("sandbox_file_write", path=path, content=text)
    code_after, out_after = run_check(call, python)
    status = read(call, STATUS) or "(not written)"
    changes = diff(before, after)

    lines = [
        "# Deploy fix report",
        "",
        "## Root cause",
        f"The root cause is an incomplete migration of the stack from the old `{old}` service endpoint to "
        f"the new `{new}` one. Only part of the configuration was moved: the compose worker still called "
        f"`{old}`, the api healthcheck probed the old port, deploy.env kept the old port/mode/queue, and "
        f"gateway.conf still sent traffic to `{old}` through a leftover upstream. The individual check "
        "errors all come from this one inconsistency.",
        "",
        "## Downstream symptoms (not root causes)",
        "- api healthcheck failing on the old port, so the worker cannot wait for a healthy api;",
        "- worker api url / queue mismatch (worker talking to a host that no longer exists);",
        "- gateway upstream, listen port, compose port mapping and proxy_pass mismatches "
        "(the gateway proxies to a dead upstream);",
        f"- the pre-deploy check before the fix (exit {code_before}) reported {len(failures)} errors:",
    ]
    lines += [f"  - {failure}" for failure in failures]
    lines += ["", "## Configuration changes (compose, deploy.env, gateway.conf)"]
    lines += changes
    lines += [
        "- No service was added or removed; file paths, check_stack.py and logs are unchanged.",
        "",
        "## Verification",
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
            f"Note: {LOG} was not present in the container, so the failure chain was taken from the "
            "pre-deploy check's own output and the configuration files.",
        ]
    call("sandbox_file_write", path=REPORT, content="\n".join(lines) + "\n")
    return (
        f"Root cause: an incomplete migration from {old} to {new}; the compose file, deploy.env and "
        "gateway.conf still mixed old and new values, and the healthcheck, worker URL/queue, gateway "
        f"upstream/listen/proxy errors are downstream symptoms ({len(failures)} check errors before the "
        f"fix). I changed {len(changes)} lines across docker-compose.yaml, deploy.env and gateway.conf (api "
        f"health check {target.health}, worker -> {target.api_url} queue {target.queue} depends on "
        f"{target.condition} api, gateway {', '.join(target.ports)} with server {target.server}, listen "
        f"{target.listen} and {target.proxy_pass}). Verified: check_stack.py now prints '{out_after}'. "
        f"Report: {REPORT}."
    )
