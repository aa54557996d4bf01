"""Run the fault and escape suite (tests/fault_suite.py) and print its figures, computed from the tests'
outcomes: escapes blocked per backend, fault kinds handled, bad-input kinds handled.

A case counts when every test it names ran and passed; a case whose tests were all skipped (Docker
without an engine) is reported as not run. Usage: ``python scripts/security_report.py [PYTEST ARGS]``
(``make security-report``); the exit status is 1 when a case failed.
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# this checkout's package and tests, here and in pytest's worker processes
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))

from fault_suite import DOCUMENTED_MISSES, SUITE, SuiteCase  # noqa: E402


class Outcomes:
    """A pytest plugin that keeps each test's outcome: failed if any phase failed, else skipped or
    passed."""

    def __init__(self) -> None:
        self.by_node: dict[str, str] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Record the phase's outcome, a failure overriding anything recorded before."""
        if report.failed:
            self.by_node[report.nodeid] = "failed"
        elif report.skipped:
            self.by_node.setdefault(report.nodeid, "skipped")
        elif report.when == "call":
            self.by_node.setdefault(report.nodeid, "passed")


def _selects(selector: str, node: str) -> bool:
    """Whether the node id ``selector`` (a file, a test, or a test with its parameters) takes ``node``."""
    return node == selector or node.startswith((f"{selector}::", f"{selector}["))


def verdict(case: SuiteCase, outcomes: dict[str, str]) -> str:
    """``passed`` (every test it names ran and passed), ``failed``, ``not run`` (all skipped) or
    ``missing`` (no test ran)."""
    found = [o for node, o in outcomes.items() if any(_selects(s, node) for s in case.tests)]
    if not found:
        return "missing"
    if "failed" in found:
        return "failed"
    return "passed" if "skipped" not in found else ("not run" if set(found) == {"skipped"} else "failed")


def figures(verdicts: dict[SuiteCase, str]) -> str:
    """The summary line: escapes blocked per backend, fault kinds handled, bad-input kinds handled."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for case, result in verdicts.items():
        key = f"{case.kind}:{case.backend}"
        if result != "not run":
            tally[key][1] += 1
            tally[key][0] += result == "passed"

    def count(key: str) -> str:
        done, total = tally.get(key, [0, 0])
        return f"{done}/{total}" if total else "not run"

    escapes = ", ".join(f"{backend} {count(f'escape:{backend}')}" for backend in ("local", "docker"))
    return (
        f"escapes blocked: {escapes}; fault kinds handled: {count('fault:')}; "
        f"bad-input kinds: {count('bad-input:')}"
    )


def main(argv: list[str]) -> int:
    """Run every test of the suite once, print each case that did not pass, then the figures."""
    selectors = sorted({s for case in SUITE for s in case.tests})
    os.chdir(ROOT)  # the selectors are paths from the checkout's root
    plugin = Outcomes()
    pytest.main(["-q", "-p", "no:cacheprovider", "--rootdir", str(ROOT), *argv, *selectors], plugins=[plugin])
    verdicts = {case: verdict(case, plugin.by_node) for case in SUITE}
    print()
    for case, result in verdicts.items():
        if result != "passed":
            where = f" ({case.backend})" if case.backend else ""
            print(f"{result:<8} {case.kind}{where}: {case.name} (expected: {case.expected})")
    for backend, why in DOCUMENTED_MISSES.items():
        print(f"documented, not counted ({backend}): {why}")
    print(figures(verdicts))
    return 1 if any(v in ("failed", "missing") for v in verdicts.values()) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
