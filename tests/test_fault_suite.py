"""The fault and escape suite's table (tests/fault_suite.py) names tests that exist, covers every escape
attempt on both backends and every bad-input kind, and its report counts what the tests did."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from types import ModuleType

from fault_suite import BACKENDS, SUITE, SuiteCase
from test_bad_input import CASES as BAD_INPUT

ROOT = Path(__file__).resolve().parents[1]


def _report() -> ModuleType:
    spec = importlib.util.spec_from_file_location("security_report", ROOT / "scripts" / "security_report.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_test_the_table_names_exists() -> None:
    for case in SUITE:
        for selector in case.tests:
            path, _, rest = selector.partition("::")
            assert (ROOT / path).is_file(), f"{case.name}: no file {path}"
            if rest:
                module = importlib.import_module(Path(path).stem)
                assert callable(getattr(module, rest.split("[")[0], None)), f"{case.name}: no test {rest}"


def test_the_table_covers_both_backends_and_every_bad_input_kind() -> None:
    escapes = {b: {c.name for c in SUITE if c.kind == "escape" and c.backend == b} for b in BACKENDS}
    assert len(escapes["local"]) >= 15 and len(escapes["docker"]) >= 15
    assert escapes["docker"] <= escapes["local"]
    assert [c.name for c in SUITE if c.kind == "bad-input"] == [c.kind for c in BAD_INPUT]
    assert len({(c.kind, c.backend, c.name) for c in SUITE}) == len(SUITE)


def test_the_figures_count_the_outcomes() -> None:
    report = _report()
    local = SuiteCase("escape", "a", "blocked", ("tests/t.py::test_a[local]",), "local")
    docker = SuiteCase("escape", "a", "blocked", ("tests/t.py::test_a[docker]",), "docker")
    fault = SuiteCase("fault", "f", "handled", ("tests/f.py",))
    bad = SuiteCase("bad-input", "b", "one line", ("tests/b.py::test_b[x]", "tests/b.py::test_c"))
    outcomes = {
        "tests/t.py::test_a[local]": "passed",
        "tests/t.py::test_a[docker]": "skipped",
        "tests/f.py::test_one": "passed",
        "tests/f.py::test_two[p]": "failed",
        "tests/b.py::test_b[x]": "passed",
        "tests/b.py::test_c[y]": "passed",
    }
    verdicts = {case: report.verdict(case, outcomes) for case in (local, docker, fault, bad)}
    assert list(verdicts.values()) == ["passed", "not run", "failed", "passed"]
    assert report.figures(verdicts) == (
        "escapes blocked: local 1/1, docker not run; fault kinds handled: 0/1; bad-input kinds: 1/1"
    )
    assert report.verdict(SuiteCase("fault", "g", "x", ("tests/none.py",)), outcomes) == "missing"
