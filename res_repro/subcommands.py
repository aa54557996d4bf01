"""The plain subcommands of ``res-repro`` (``check``, ``validate``, ``view``, ``export-sft``,
``export-harbor``, ``lineages``, ``operators``, ``clean-stale``), by name in :data:`SUBCOMMANDS`. Each
parses its own arguments and returns an exit status; bad input raises
:class:`~res_repro.errors.UserInputError`. Each imports what it needs when it runs, so
``res-repro --help`` and the Hydra runs stay quick to start.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from res_repro.errors import UserInputError


def _target_arguments(parser: argparse.ArgumentParser) -> None:
    from res_repro.benchmarks.claw_eval_live import CHECKOUT_VARIABLE

    parser.add_argument("target", help="a task directory, a folder of them, or a benchmark name")
    parser.add_argument(
        "--checkout",
        help=f"a local checkout of the benchmark (claw_eval_live); default: ${CHECKOUT_VARIABLE}",
    )


def _targets(args: argparse.Namespace) -> list[Any]:
    """The tasks (or load errors) that TARGET names."""
    from res_repro.benchmarks.claw_eval_live import CHECKOUT_VARIABLE
    from res_repro.benchmarks.registry import resolve_target

    checkout = args.checkout or os.environ.get(CHECKOUT_VARIABLE)
    params = {"checkout": checkout} if checkout else {}
    return resolve_target(args.target, params)


def _positive(text: str) -> int:
    """An argument that must be a whole number of at least 1 (argparse reports anything else)."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {text!r}")
    return value


def _check(argv: list[str]) -> int:
    """Run oracle and nop on every task of TARGET, one line per task; exit 0 only when all are valid."""
    from res_repro.config import project_root
    from res_repro.env.errors import TaskFormatError
    from res_repro.evaluation.check import LoadFailure, check_tasks, summary_line
    from res_repro.evaluation.store import EpisodeStore
    from res_repro.sandbox import sandbox_class
    from res_repro.sandbox.stale import clean_stale

    parser = argparse.ArgumentParser(prog="res-repro check", description=_check.__doc__)
    _target_arguments(parser)
    parser.add_argument("--sandbox", default="local", help="sandbox backend: local or docker")
    parser.add_argument("--workers", type=_positive, default=2, help="episodes run at once")
    parser.add_argument(
        "--cache-dir",
        type=Path,
        default=Path(project_root()) / ".cache" / "episodes",
        help="where finished episodes are kept and reused",
    )
    args = parser.parse_args(argv)
    sandbox_class(args.sandbox)  # an unknown backend stops here, before any task is read
    found = _targets(args)
    tasks = [t for t in found if not isinstance(t, TaskFormatError)]
    if args.sandbox == "docker":  # an engine that is not there is said once, not as 2 x N task errors
        from res_repro.sandbox import SandboxError
        from res_repro.sandbox.docker import connect

        try:
            connect().close()
        except SandboxError as exc:
            print(f"error: {exc}; no task was checked", file=sys.stderr)
            return 1
    for line in clean_stale(docker=args.sandbox == "docker"):
        print(line)
    checked = iter(
        check_tasks(tasks, backend=args.sandbox, store=EpisodeStore(args.cache_dir), workers=args.workers)
    )
    verdicts = [LoadFailure(t) if isinstance(t, TaskFormatError) else next(checked) for t in found]
    for verdict in verdicts:
        print(verdict.line())
    print(summary_line(verdicts))
    return 0 if all(v.valid for v in verdicts) else 1


def _export_sft(argv: list[str]) -> int:
    """Export model episodes from an episodes.jsonl file as chat fine-tuning JSONL (messages + tools)."""
    from res_repro.config import compose_config
    from res_repro.evaluation.episode import read_episodes
    from res_repro.evaluation.metrics import MetricSettings
    from res_repro.sft.export import NOT_PASSED, SCRIPTED, export_chat_jsonl, metadata_path

    parser = argparse.ArgumentParser(prog="res-repro export-sft", description=_export_sft.__doc__)
    parser.add_argument("episodes", type=Path, help="an episodes.jsonl written by a run")
    parser.add_argument("out", type=Path, help="the chat JSONL file to write")
    parser.add_argument("--all", action="store_true", help="keep episodes that did not pass too")
    parser.add_argument(
        "--include-scripted",
        action="store_true",
        help="keep scripted agents' episodes too (labelled scripted in the metadata side file)",
    )
    parser.add_argument("--force", action="store_true", help="replace OUT (and its side file) if it exists")
    args = parser.parse_args(argv)
    if not args.episodes.is_file():
        raise UserInputError(f"{args.episodes}: not found; expected an episodes.jsonl file")
    if args.out.exists() and not args.force:
        raise UserInputError(f"{args.out}: exists; pass --force to replace it, or name another file")
    cfg = compose_config()  # "passed" by the project's metrics config (conf/metrics/)
    report = export_chat_jsonl(
        read_episodes(args.episodes),
        args.out,
        only_passed=not args.all,
        include_scripted=args.include_scripted,
        settings=MetricSettings.from_config(cfg.metrics, cfg.seed),
    )
    if not report.written:
        hints = {SCRIPTED: "--include-scripted keeps them", NOT_PASSED: "--all keeps them"}
        hinted = [f"{hints[r]} ({r})" for r in report.skipped if r in hints]
        print(f"no episode written to {args.out}: {report.why_none()}" + "".join(f"; {h}" for h in hinted))
        return 1
    left_out = f"; left out: {report.why_none()}" if report.skipped else ""
    print(f"{report.written} episodes written to {args.out} (metadata: {metadata_path(args.out)}){left_out}")
    return 0


def _validate(argv: list[str]) -> int:
    """Check that TARGET's task files are well-formed, one line per task, without running anything."""
    from res_repro.env.errors import TaskFormatError

    parser = argparse.ArgumentParser(prog="res-repro validate", description=_validate.__doc__)
    _target_arguments(parser)
    found = [_compiled(item) for item in _targets(parser.parse_args(argv))]
    for item in found:
        if isinstance(item, TaskFormatError):
            print(f"{'UNREADABLE':<12} {item}")
        else:
            print(f"{'ok':<12} {item.task_id:<40} {item.kind}")
    bad = sum(isinstance(item, TaskFormatError) for item in found)
    print(f"{len(found)} tasks: {len(found) - bad} well-formed" + (f", {bad} unreadable" if bad else ""))
    return 1 if bad else 0


def _compiled(item: Any) -> Any:
    """A loaded task, or the TaskFormatError of its first Python grader or reference program that does
    not compile (nothing is run); a load error as it is."""
    from res_repro.env.errors import TaskFormatError
    from res_repro.env.formats import compile_task_code

    if isinstance(item, TaskFormatError):
        return item
    try:
        return compile_task_code(item)
    except TaskFormatError as exc:
        return exc


def _export_harbor(argv: list[str]) -> int:
    """Write scaled environments (a lineage store) or Harbor tasks (a folder) as a Harbor dataset."""
    from res_repro.res.harbor_export import DEFAULT_ORG, export_harbor

    parser = argparse.ArgumentParser(prog="res-repro export-harbor", description=_export_harbor.__doc__)
    parser.add_argument("source", type=Path, help="a lineage store (e.g. .cache/lineages) or a task folder")
    parser.add_argument("out", type=Path, help="the dataset folder to write (new or empty)")
    parser.add_argument("--org", default=DEFAULT_ORG, help="the org of the org/name task names")
    parser.add_argument("--all-nodes", action="store_true", help="every node, not only each lineage's last")
    args = parser.parse_args(argv)
    report = export_harbor(args.source, args.out, org=args.org, every_node=args.all_nodes)
    for name, why in report.skipped.items():
        print(f"skipped {name}: {why}")
    if not report.written:
        print(f"no Harbor task to write from {args.source}")
        return 1
    print(f"{len(report.written)} Harbor tasks written to {args.out} (harbor run --path {args.out})")
    return 0


def _view(argv: list[str]) -> int:
    """Browse a run's tables, episodes and lineages in a local web page (or write them as static files)."""
    import tempfile

    from res_repro.config import compose_config
    from res_repro.viewer import resolve_source, serve, write_bundle
    from res_repro.viewer.sources import newest_run

    parser = argparse.ArgumentParser(prog="res-repro view", description=_view.__doc__)
    parser.add_argument(
        "source",
        type=Path,
        nargs="?",
        help="a run folder, a lineage store (.cache/lineages) or an episode store; default: the newest run",
    )
    parser.add_argument("--port", type=int, default=8765, help="the local port to serve on (0: any free one)")
    parser.add_argument("--bundle", type=Path, help="write the pages to this folder instead of serving them")
    parser.add_argument("--cache-dir", type=Path, help="the cache a run used (default: the .cache above it)")
    args = parser.parse_args(argv)
    paths = compose_config().paths
    source = resolve_source(args.source or newest_run(Path(paths.log_dir)), args.cache_dir)
    if args.bundle is not None:
        print(f"view written to {write_bundle(source, args.bundle)}")
        return 0
    with tempfile.TemporaryDirectory(prefix="res-repro-view-") as folder:
        write_bundle(source, Path(folder))
        try:
            server = serve(Path(folder), args.port)
        except OSError as exc:
            raise UserInputError(f"--port {args.port}: {exc.strerror}; choose another port") from None
        print(f"viewing {source.label} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C ends)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            server.server_close()
    return 0


def _lineages(argv: list[str]) -> int:
    """Summarise a lineage store: accepted changes by family, operator and depth, composition, and seeds."""
    import json

    from res_repro.config import compose_config
    from res_repro.pipelines.lineage_summary import summarise

    parser = argparse.ArgumentParser(prog="res-repro lineages", description=_lineages.__doc__)
    parser.add_argument(
        "store",
        type=Path,
        nargs="?",
        help="a lineage store; default: the lineages under the config's paths.cache_dir",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    args = parser.parse_args(argv)
    summary = summarise(args.store or Path(compose_config().paths.cache_dir) / "lineages")
    print(json.dumps(summary.to_dict(), indent=2) if args.json else summary.to_markdown().rstrip("\n"))
    return 0


def _operators(argv: list[str]) -> int:
    """Count, for every operator, the tasks of TARGET whose original environment it would change."""
    from res_repro.evaluation.check import LoadFailure
    from res_repro.pipelines.operator_reach import operator_reach

    parser = argparse.ArgumentParser(prog="res-repro operators", description=_operators.__doc__)
    _target_arguments(parser)
    args = parser.parse_args(argv)
    found = _targets(args)
    failed = [t for t in found if isinstance(t, LoadFailure)]
    reach = operator_reach(t for t in found if not isinstance(t, LoadFailure))
    print(reach.table().to_markdown().rstrip("\n"))
    if failed:
        print(f"\n{len(failed)} task(s) of {args.target} did not load (res-repro validate lists why)")
    return 0


def _clean_stale(argv: list[str]) -> int:
    """Remove what killed runs left behind (processes, mounts, folders, cgroups, containers, volumes)."""
    from res_repro.sandbox.stale import clean_stale

    parser = argparse.ArgumentParser(prog="res-repro clean-stale", description=_clean_stale.__doc__)
    parser.add_argument("--no-docker", action="store_true", help="leave the Docker engine alone")
    args = parser.parse_args(argv)
    for line in clean_stale(docker=not args.no_docker, every_kind=True):
        print(line)
    return 0


SUBCOMMANDS = {
    "check": _check,
    "validate": _validate,
    "view": _view,
    "export-sft": _export_sft,
    "export-harbor": _export_harbor,
    "lineages": _lineages,
    "operators": _operators,
    "clean-stale": _clean_stale,
}
