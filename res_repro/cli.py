"""``res-repro``: Hydra-configured pipelines, plus plain subcommands such as ``check``.

``res-repro check TARGET`` validates tasks; anything else is handed to Hydra, so
``res-repro experiment=table1`` and ``res-repro -m metrics.threshold=0.7,0.8`` work as usual.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from res_repro.errors import UserInputError


def _check(argv: list[str]) -> int:
    """Run oracle and nop on every task of TARGET; exit 0 only when every task is valid."""
    from res_repro.benchmarks.registry import resolve_target
    from res_repro.config import project_root
    from res_repro.evaluation.check import check_tasks, summary_line
    from res_repro.evaluation.store import EpisodeStore

    parser = argparse.ArgumentParser(prog="res-repro check", description=_check.__doc__)
    parser.add_argument("target", help="a task directory, a folder of them, or a benchmark name")
    parser.add_argument("--sandbox", default="local", help="sandbox backend: local or docker")
    parser.add_argument("--workers", type=int, default=2, help="episodes run at once")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(project_root()) / ".cache" / "episodes",
        help="where finished episodes are kept and reused",
    )
    args = parser.parse_args(argv)
    tasks = resolve_target(args.target)
    verdicts = check_tasks(
        tasks, backend=args.sandbox, store=EpisodeStore(args.cache_dir), workers=args.workers
    )
    for verdict in verdicts:
        print(verdict.line())
    print(summary_line(verdicts))
    return 0 if all(v.valid for v in verdicts) else 1


def _export_sft(argv: list[str]) -> int:
    """Export model episodes from an episodes.jsonl file as chat fine-tuning JSONL (messages + tools)."""
    from res_repro.sft.export import export_chat_jsonl, read_episodes

    parser = argparse.ArgumentParser(prog="res-repro export-sft", description=_export_sft.__doc__)
    parser.add_argument("episodes", type=Path, help="an episodes.jsonl written by a run")
    parser.add_argument("out", type=Path, help="the chat JSONL file to write")
    parser.add_argument("--all", action="store_true", help="keep episodes that did not pass too")
    parser.add_argument(
        "--include-scripted",
        action="store_true",
        help="keep scripted agents' episodes too (labelled scripted in each record's metadata)",
    )
    args = parser.parse_args(argv)
    if not args.episodes.is_file():
        raise UserInputError(f"{args.episodes}: not found; expected an episodes.jsonl file")
    written = export_chat_jsonl(
        read_episodes(args.episodes),
        args.out,
        only_passed=not args.all,
        include_scripted=args.include_scripted,
    )
    print(f"{written} episodes written to {args.out}")
    return 0


def _validate(argv: list[str]) -> int:
    """Check that TARGET's task files are well-formed, without running anything."""
    from res_repro.benchmarks.registry import resolve_target

    parser = argparse.ArgumentParser(prog="res-repro validate", description=_validate.__doc__)
    parser.add_argument("target", help="a task directory, a folder of them, or a benchmark name")
    args = parser.parse_args(argv)
    tasks = resolve_target(args.target)
    kinds = sorted({task.kind for task in tasks})
    print(f"{len(tasks)} tasks well-formed ({', '.join(kinds)})")
    return 0


SUBCOMMANDS = {"check": _check, "validate": _validate, "export-sft": _export_sft}


def _exit_on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM (a scheduler's timeout, ``kill``) ends the run like Ctrl-C does: sandboxes, services and
    mounts are closed on the way out instead of being left behind."""
    sys.exit(128 + signum)


def main() -> None:
    """Dispatch to a subcommand, or to the Hydra app for everything else; bad input ends with one line."""
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    if len(sys.argv) > 1 and sys.argv[1] in SUBCOMMANDS:
        try:
            sys.exit(SUBCOMMANDS[sys.argv[1]](sys.argv[2:]))
        except UserInputError as exc:
            print(f"error: {exc}", file=sys.stderr)
            sys.exit(2)
    from res_repro.app import hydra_main

    hydra_main()
