"""Mutation testing of the core modules (``make mutation``): mutmut mutates each module listed in
mutation/modules.toml in a scratch folder and runs only that module's own tests against every mutant.

Prints each module's score (killed share, the mutants of mutation/equivalent.toml left out) and its
survivors; exits 1 when a module scores under ``min_score`` or its run did not complete (one line naming
the module; mutmut's output is kept in the module's scratch folder). ``python scripts/mutation.py
MODULE...`` runs only the modules named (paths as in modules.toml).

Every test run (the statistics run, the clean run, each mutant) starts in a fresh process forked from
one that has only collected the tests (mutmut's fork server), so no run sees what an earlier run left in
memory, and mutants run one at a time.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIG = ROOT / "mutation" / "modules.toml"
EQUIVALENT = ROOT / "mutation" / "equivalent.toml"
SCRATCH = ROOT / ".cache" / "mutation"
LINKED = ("res_repro", "tests", "conf")  # what the tests of a module read, copied by mutmut
KILLED_CODES = {1, 3, 36, -24, 24, 152, 255, -11, -9}  # mutmut's codes of a failing test, a timeout, a crash
SURVIVED_CODES = {0, 33}  # the tests passed; no test reaches the mutated function


class MutationRunError(Exception):
    """A module's mutation run did not complete, so it has no score."""


def _scratch(module: str, tests: list[str]) -> Path:
    """A fresh folder with the project linked in and a pyproject.toml that points mutmut at ``module``."""
    folder = SCRATCH / Path(module).with_suffix("").as_posix().replace("/", ".")
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for name in LINKED:
        (folder / name).symlink_to(ROOT / name)
    settings = {
        "source_paths": ["res_repro"],
        "only_mutate": [module],
        "pytest_add_cli_args_test_selection": tests,
        "pytest_add_cli_args": ["-p", "no:cacheprovider", "-q", "-m", "not slow"],
        "also_copy": ["conf"],
        "process_isolation": "forkserver",
    }
    lines = ["", "[tool.mutmut]", *(f"{key} = {json.dumps(value)}" for key, value in settings.items())]
    (folder / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text() + "\n".join(lines) + "\n")
    return folder


def _exit_codes(folder: Path, module: str) -> dict[str, int | None]:
    """Each mutant's exit code from mutmut's record of the run (None: not run)."""
    meta = folder / "mutants" / f"{module}.meta"
    return json.loads(meta.read_text())["exit_code_by_key"] if meta.is_file() else {}


def _last_line(log: Path) -> str:
    """The last line mutmut printed (its spinner redraws lines with carriage returns)."""
    lines = [line.strip() for line in log.read_text(errors="replace").replace("\r", "\n").splitlines()]
    return next((line for line in reversed(lines) if line), "no output")


def run_module(module: str, tests: list[str], equivalent: dict[str, str]) -> tuple[float, int, list[str]]:
    """Mutate ``module``, run ``tests`` against each mutant; return the score in percent, the number of
    mutants scored and the survivors (equivalent mutants left out). Raises MutationRunError when mutmut
    fails or leaves a mutant without a verdict."""
    folder = _scratch(module, tests)
    log = folder / "mutmut.log"
    with log.open("w") as out:
        command = [sys.executable, "-m", "mutmut", "run", "--max-children", "1"]
        run = subprocess.run(command, cwd=folder, stdout=out, stderr=subprocess.STDOUT, check=False)
    if run.returncode != 0:
        raise MutationRunError(f"mutmut exited {run.returncode}: {_last_line(log)} (output in {log})")
    generated = _exit_codes(folder, module)
    if not generated:
        raise MutationRunError(f"mutmut recorded no mutants (output in {log})")
    unfinished = sorted(name for name, code in generated.items() if code not in KILLED_CODES | SURVIVED_CODES)
    if unfinished:
        raise MutationRunError(
            f"{len(unfinished)} of {len(generated)} mutants have no verdict, e.g. {unfinished[0]} "
            f"(exit code {generated[unfinished[0]]}; output in {log})"
        )
    codes = {name: code for name, code in generated.items() if name not in equivalent}
    survivors = sorted(name for name, code in codes.items() if code in SURVIVED_CODES)
    return 100.0 * (len(codes) - len(survivors)) / len(codes), len(codes), survivors


def main(argv: list[str]) -> int:
    """Run the modules named in ``argv`` (all when none) and print a score per module."""
    config = tomllib.loads(CONFIG.read_text())
    equivalent = tomllib.loads(EQUIVALENT.read_text()).get("equivalent", {})
    modules: dict[str, list[str]] = config["modules"]
    unknown = [name for name in argv if name not in modules]
    if unknown:
        raise SystemExit(f"{CONFIG}: no module {unknown}; expected some of {sorted(modules)}")
    scores: dict[str, tuple[float, int]] = {}
    failed = []
    for module in argv or list(modules):
        try:
            score, count, survivors = run_module(module, modules[module], equivalent)
        except MutationRunError as error:
            print(f"{module}: no score, its mutation run did not complete: {error}", file=sys.stderr)
            failed.append(module)
            continue
        scores[module] = (score, count)
        print(f"{module}: {score:.1f}% of {count} mutants killed, {len(survivors)} survived", flush=True)
        for name in survivors:
            print(f"  survived: {name}")
    low = [module for module, (score, _) in scores.items() if score < config["min_score"]]
    print("\n".join(f"{score:6.1f}%  {count:4d}  {module}" for module, (score, count) in scores.items()))
    if low:
        print(f"under {config['min_score']}%: {', '.join(low)}")
    if failed:
        print(f"not scored (run failed): {', '.join(failed)}")
    return 1 if low or failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
