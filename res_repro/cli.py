"""``res-repro``: Hydra-configured pipelines, plus plain subcommands such as ``check``.

The plain subcommands (``check``, ``validate``, ``view``, ``export-sft``, ``export-harbor``,
``clean-stale``) live in :mod:`res_repro.subcommands`; anything else is handed to Hydra, so
``res-repro experiment=table1`` and ``res-repro -m metrics.threshold=0.7,0.8`` work as usual.
"""

from __future__ import annotations

import signal
import sys

from res_repro.config import config_choices, internal_choice
from res_repro.config_checks import overrides_problem
from res_repro.env.processes import stop_children
from res_repro.errors import UserInputError
from res_repro.subcommands import SUBCOMMANDS


def _exit_on_sigterm(signum: int, frame: object) -> None:
    """SIGTERM (a scheduler's timeout, ``kill``) ends the run like Ctrl-C does: task code is killed at
    once, and sandboxes, services and mounts are closed on the way out instead of being left behind."""
    stop_children()
    sys.exit(128 + signum)


def _interrupt(signum: int, frame: object) -> None:
    """Ctrl-C: kill running task code (graders, reference programs, in their own process groups, which
    the terminal's SIGINT does not reach), then stop as Python does."""
    stop_children()
    raise KeyboardInterrupt


def _usage() -> str:
    """The subcommands, each with its first docstring line, and how runs are configured."""
    lines = ["usage: res-repro SUBCOMMAND ... | res-repro [-m] KEY=VALUE ...", "", "subcommands:"]
    lines += [
        f"  {name:<14} {(command.__doc__ or '').splitlines()[0]}" for name, command in SUBCOMMANDS.items()
    ]
    lines += [
        "",
        "runs: Hydra overrides, e.g. res-repro experiment=table1 benchmark=terminal_bundled",
        "      (res-repro SUBCOMMAND --help; res-repro --cfg job shows a run's config; make help lists",
        "      the paper's targets)",
        "",
        "config groups (GROUP=OPTION):",
    ]
    lines += [f"  {group:<14} {', '.join(options)}" for group, options in config_choices().items()]
    return "\n".join(lines)


def main() -> None:
    """Dispatch to a subcommand, or to the Hydra app for everything else; bad input ends with one line."""
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    signal.signal(signal.SIGINT, _interrupt)
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `res-repro check ... | head` ends quietly
    if len(sys.argv) > 1 and sys.argv[1] in {"-h", "--help", "help"}:
        print(_usage())
        sys.exit(0)
    if len(sys.argv) > 1 and sys.argv[1] in SUBCOMMANDS:
        try:
            sys.exit(SUBCOMMANDS[sys.argv[1]](sys.argv[2:]))
        except UserInputError as exc:
            print(f"error: {exc}", file=sys.stderr)
            sys.exit(2)
    problem = internal_choice(sys.argv[1:])
    if problem is None and not any(arg.startswith("-") for arg in sys.argv[1:]):
        problem = overrides_problem(sys.argv[1:])  # a single run: its config is checked before Hydra starts
    if problem is not None:
        print(f"error: {problem}", file=sys.stderr)
        sys.exit(2)
    from res_repro.app import freeze_at_exit, hydra_main

    freeze_at_exit()  # a multirun's driver too, which runs no job itself
    hydra_main()
