"""Mutation testing of the core modules (``make mutation``): mutmut mutates each module listed in
mutation/modules.toml in a scratch folder and runs only that module's own tests against every mutant.

Prints each module's score (killed share, the mutants of mutation/equivalent.toml left out) and its
survivors; exits 1 when a module scores under ``min_score``. ``python scripts/mutation.py MODULE...``
runs only the modules named (paths as in modules.toml).
"""

from __future__ import annotations

import json
import os
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
    }
    lines = ["", "[tool.mutmut]", *(f"{key} = {json.dumps(value)}" for key, value in settings.items())]
    (folder / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text() + "\n".join(lines) + "\n")
    return folder


def _exit_codes(folder: Path, module: str) -> dict[str, int | None]:
    """Each mutant's exit code from mutmut's record of the run (None: not run)."""
    meta = folder / "mutants" / f"{module}.meta"
    return json.loads(meta.read_text())["exit_code_by_key"] if meta.is_file() else {}


def run_module(module: str, tests: list[str], equivalent: dict[str, str]) -> tuple[float, list[str]]:
    """Mutate ``module``, run ``tests`` against each mutant; return the score in percent and the
    survivors (equivalent mutants left out)."""
    folder = _scratch(module, tests)
    # One mutant at a time by default: run side by side, the scaler's tests passed on mutants that they
    # fail one at a time.
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", os.environ.get("MUTATION_JOBS", "1")]
    subprocess.run(command, cwd=folder, check=True, stdout=subprocess.DEVNULL)
    codes = {name: code for name, code in _exit_codes(folder, module).items() if name not in equivalent}
    if not codes:
        raise SystemExit(f"{module}: mutmut recorded no mutants (see {folder})")
    survivors = sorted(name for name, code in codes.items() if code not in KILLED_CODES)
    return 100.0 * (len(codes) - len(survivors)) / len(codes), survivors


def main(argv: list[str]) -> int:
    """Run the modules named in ``argv`` (all when none) and print a score per module."""
    config = tomllib.loads(CONFIG.read_text())
    equivalent = tomllib.loads(EQUIVALENT.read_text()).get("equivalent", {})
    modules: dict[str, list[str]] = config["modules"]
    unknown = [name for name in argv if name not in modules]
    if unknown:
        raise SystemExit(f"{CONFIG}: no module {unknown}; expected some of {sorted(modules)}")
    scores = {}
    for module in argv or list(modules):
        score, survivors = run_module(module, modules[module], equivalent)
        scores[module] = score
        print(f"{module}: {score:.1f}% killed, {len(survivors)} survived", flush=True)
        for name in survivors:
            print(f"  survived: {name}")
    low = [module for module, score in scores.items() if score < config["min_score"]]
    print("\n".join(f"{score:6.1f}%  {module}" for module, score in scores.items()))
    if low:
        print(f"under {config['min_score']}%: {', '.join(low)}")
    return 1 if low else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
