"""Bad input, kind by kind: each ends with one ``error:`` line (or argparse's one usage error) naming what
is wrong, a non-zero exit and no traceback, before any work starts.

Every case runs the real command line (``res_repro.cli.main``) in this process, so the table stays quick.
``{tmp}`` in an argument is the case's own folder; ``{good}`` a well-formed tool-API task; ``{bad-*}``
the malformed task files written by :func:`_malformed`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_runs import run_in_process
from task_factory import make_task
from tool_factory import make_tool_task

from res_repro import cli

USAGE = 2  # argparse's exit status for a bad argument, and ours for bad input


@dataclass(frozen=True)
class Case:
    """One kind of bad input: the arguments, what its one line must say, and the exit status."""

    kind: str
    argv: tuple[str, ...]
    says: str  # a regular expression the error line matches
    status: int = USAGE


RUN = ("show_progress=false", "tracking=none")  # a pipeline run; paths.root_dir is added per case

CASES = [
    # config values out of range
    Case("negative benchmark limit", ("benchmark.limit=-3",), r"benchmark\.limit=-3: expected a number >= 0"),
    Case("zero workers", ("workers=0",), r"workers=0: expected a number >= 1"),
    Case("negative seed", ("seed=-1",), r"seed=-1: expected a number >= 0"),
    Case(
        "threshold above 1",
        ("metrics.threshold=1.7",),
        r"metrics\.threshold=1\.7: expected a number in \[0, 1\]",
    ),
    Case("negative TCR fraction", ("metrics.tcr_fraction=-0.1",), r"metrics\.tcr_fraction=-0\.1"),
    Case(
        "confidence of 1",
        ("metrics.confidence=1.0",),
        r"metrics\.confidence=1\.0: expected a number in \(0, 1\)",
    ),
    Case("no bootstrap resamples", ("metrics.n_bootstrap=0",), r"metrics\.n_bootstrap=0"),
    Case("success threshold above 1", ("protocol.success_threshold=2",), r"protocol\.success_threshold=2"),
    Case("negative depth cap", ("scaling.depth_cap=-1",), r"scaling\.depth_cap=-1: expected a number >= 0"),
    Case("negative revisions", ("scaling.max_revisions=-1",), r"scaling\.max_revisions=-1"),
    Case(
        "zero target attempts",
        ("scaling.target_attempts=0",),
        r"scaling\.target_attempts=0: expected a number >= 1",
    ),
    Case("zero target turns", ("scaling.target_max_turns=0",), r"scaling\.target_max_turns=0"),
    Case("zero operators per child", ("scaling.proposer.operators_per_child=0",), r"operators_per_child=0"),
    Case(
        "reversed admission band",
        ("scaling.admission.band=[0.9,0.1]",),
        r"scaling\.admission\.band=\[0\.9, 0\.1\]",
    ),
    Case("zero agent turns", ("agent_loop.max_turns=0",), r"agent_loop\.max_turns=0"),
    Case("negative time limit", ("agent_loop.time_limit_s=-5",), r"agent_loop\.time_limit_s=-5"),
    Case("zero request attempts", ("agent_loop.retry.max_attempts=0",), r"agent_loop\.retry\.max_attempts=0"),
    Case("jitter above 1", ("agent_loop.retry.jitter=2",), r"agent_loop\.retry\.jitter=2"),
    Case("negative infra retries", ("sandbox.max_infra_retries=-1",), r"sandbox\.max_infra_retries=-1"),
    Case("zero workspace", ("sandbox.workspace_mb=0",), r"sandbox\.workspace_mb=0"),
    Case("zero process limit", ("sandbox.pids_limit=0",), r"sandbox\.pids_limit=0"),
    Case(
        "sweep threshold above 1",
        ("sweep.thresholds=[0.5,1.5]",),
        r"sweep\.thresholds=\[0\.5, 1\.5\]: expected each",
    ),
    Case(
        "negative model price",
        ("models=paper", "models.gpt_5_6_sol.input_price_per_mtok=-1"),
        r"input_price_per_mtok=-1",
    ),
    Case(
        "zero model timeout",
        ("models=paper", "models.gpt_5_6_sol.timeout_s=0"),
        r"models\.gpt_5_6_sol\.timeout_s=0",
    ),
    Case("zero Ray CPUs", ("executor=ray", "executor.num_cpus=0"), r"executor\.num_cpus=0"),
    Case(
        "Ray's own resource as a custom one",
        ("executor=ray", "+executor.task_resources.CPU=2"),
        r"executor\.task_resources: expected custom resource names .* got CPU: 2\.0",
    ),
    Case("negative learning rate", ("sft.train.learning_rate=-1",), r"sft\.train\.learning_rate=-1"),
    # types, names, structure
    Case("count that is not a number", ("workers=abc",), r"workers.*abc"),
    Case("unknown key", ("nosuchkey=1",), r"nosuchkey"),
    Case("unknown nested key", ("metrics.nosuch=1",), r"nosuch"),
    Case("unknown group option", ("benchmark=nosuch",), r"benchmark.*nosuch"),
    Case(
        "internal schema as a choice",
        ("benchmark=base_agentce",),
        r"base_agentce is an internal schema entry",
    ),
    Case("malformed override", ("workers=[1,",), r"workers=\[1,"),
    Case("unknown pipeline", ("task_name=nosuch",), r"task_name: unknown pipeline 'nosuch'"),
    Case("unknown agent", ("agents=[nosuch]",), r"agents: unknown agent 'nosuch'"),
    Case("unknown operator", ("scaling.library=[nosuch]",), r"nosuch"),
    Case(
        "unknown sandbox backend",
        ("sandbox.backend=nosuch",),
        r"unknown sandbox backend 'nosuch' \(sandbox\.backend",
    ),
    Case("unknown stopping rule", ("scaling.stop_on=nosuch",), r"stop_on.*nosuch"),
    Case("unknown proposer kind", ("scaling.proposer.kind=nosuch",), r"proposer.*nosuch"),
    Case("missing API key", ("models=api", "agents=[gpt_5_6_sol]"), r"OPENAI_API_KEY"),
    Case(
        "several missing API keys, each named",
        ("models=paper",),
        r"DEEPSEEK_API_KEY \(deepseek_v4_1_flash\), OPENAI_API_KEY \(gpt_5_6_sol\), ANTHROPIC_API_KEY",
    ),
    Case("own model without its id", ("models=own",), r"models\.own\.model: a value is needed"),
    Case("threshold that is not a number", ("metrics.threshold=abc",), r"metrics\.threshold=abc.*Float"),
    Case("whole number given a fraction", ("seed=1.5",), r"seed=1\.5.*Integer"),
    Case("agent list given one name", ("agents=oracle",), r"agents=oracle.*not a ListConfig"),
    Case("unknown executor", ("executor=nosuch",), r"executor/nosuch.*expected one of local, ray"),
    Case("zero proposer turns", ("scaling.proposer.max_turns=0",), r"scaling\.proposer\.max_turns=0"),
    Case("zero proposer token budget", ("scaling.proposer.token_budget=0",), r"token_budget=0: expected"),
    Case(
        "zero model concurrency",
        ("models=paper", "models.gpt_5_6_sol.max_concurrency=0"),
        r"max_concurrency=0",
    ),
    Case("zero sandbox concurrency", ("sandbox.max_concurrency=0",), r"sandbox\.max_concurrency=0"),
    Case("missing dataset folder", ("benchmark=harbor_dataset", "benchmark.path={tmp}/nowhere"), r"nowhere"),
    Case("dataset path left unset", ("benchmark=harbor_dataset",), r"benchmark\.path"),
    Case(
        "missing benchmark checkout",
        ("benchmark=claw_eval_live", "benchmark.checkout={tmp}/nowhere"),
        r"nowhere",
    ),
    # subcommands
    Case("check of a missing folder", ("check", "{tmp}/nowhere"), r"nowhere"),
    Case("validate of a missing folder", ("validate", "{tmp}/nowhere"), r"nowhere"),
    Case("check with zero workers", ("check", "{good}", "--workers", "0"), r"--workers"),
    Case(
        "check with an unknown sandbox",
        ("check", "{good}", "--sandbox", "nosuch"),
        r"unknown sandbox backend 'nosuch'.*check --sandbox",
    ),
    Case(
        "unknown subcommand option", ("validate", "{good}", "--nosuch"), r"unrecognized arguments: --nosuch"
    ),
    Case("view on a port that is not a number", ("view", "--port", "abc"), r"--port.*abc"),
    Case("view of a missing folder", ("view", "{tmp}/nowhere"), r"nowhere: not a folder"),
    Case(
        "export-sft of a file that is not JSON lines",
        ("export-sft", "{bad-jsonl}", "{tmp}/out.jsonl"),
        r"garbage\.jsonl: line 2 is not an episode record \(JSONDecodeError\)",
    ),
    Case(
        "export-sft of a file that is not UTF-8",
        ("export-sft", "{bad-bytes-jsonl}", "{tmp}/out.jsonl"),
        r"bytes\.jsonl: line 1 is not an episode record \(UnicodeDecodeError\)",
    ),
    Case(
        "export-sft of a missing file", ("export-sft", "{tmp}/none.jsonl", "{tmp}/out.jsonl"), r"none\.jsonl"
    ),
    Case(
        "export-sft onto an existing file",
        ("export-sft", "{good}/task.yaml", "{good}/solution/solve.py"),
        r"solve\.py: exists; pass --force",
    ),
    Case("export-harbor of a missing source", ("export-harbor", "{tmp}/nowhere", "{tmp}/out"), r"nowhere"),
    # malformed task files (validate reports each on its own line and exits 1)
    Case("grader with a syntax error", ("validate", "{bad-grader}"), r"grader\.py", 1),
    Case("reference with a syntax error", ("validate", "{bad-solve}"), r"solve\.py", 1),
    Case("task.yaml that is not YAML", ("validate", "{bad-yaml}"), r"task\.yaml", 1),
    Case("task.yaml missing a field", ("validate", "{bad-field}"), r"task\.yaml", 1),
    Case(
        "task.yaml that is a YAML bomb", ("validate", "{bad-bomb}"), r"task\.yaml.*aliases expand it past", 1
    ),
    Case("task.toml that is not TOML", ("validate", "{bad-toml}"), r"task\.toml", 1),
    Case("task.yaml that is a list", ("validate", "{bad-list}"), r"task\.yaml: expected a mapping", 1),
    Case("task.yaml that is not UTF-8", ("validate", "{bad-yaml-bytes}"), r"task\.yaml: not UTF-8 text", 1),
    Case("grader that is not UTF-8", ("validate", "{bad-grader-bytes}"), r"grader\.py: cannot be read", 1),
    Case(
        "instruction that is not UTF-8",
        ("validate", "{bad-instruction-bytes}"),
        r"instruction\.md: not UTF-8",
        1,
    ),
    Case("instruction missing", ("validate", "{bad-no-instruction}"), r"instruction\.md: missing", 1),
    Case("verifier script missing", ("validate", "{bad-no-tests}"), r"test\.sh: missing", 1),
    Case(
        "negative verifier timeout",
        ("validate", "{bad-timeout}"),
        r"task\.toml: field 'verifier\.timeout_sec': input should be greater than 0",
        1,
    ),
    Case("folder with no task", ("validate", "{bad-empty}"), r"bad-empty: holds no task directory"),
    Case(
        "instruction linked out of the task",
        ("validate", "{bad-link}"),
        r"instruction\.md.*a link out of the task",
        1,
    ),
    # values that become folders
    Case("task name that is a path", ("task_name=../..",), r"task_name='\.\./\.\.': expected a plain name"),
    Case("empty root folder", ("paths.root_dir=",), r"paths\.root_dir='': expected the folder"),
    Case("root folder that is a file", ("paths.root_dir={a-file}",), r"paths\.root_dir='.*a-file': a file"),
    Case(
        "malformed task in a run",
        ("benchmark=harbor_dataset", "benchmark.path={bad-grader-dir}"),
        r"grader\.py",
    ),
]


def _malformed(root: Path) -> dict[str, str]:
    """Write one well-formed task and the malformed ones; their placeholders in the case arguments."""
    good = make_tool_task(root / "good")
    places = {"good": str(good)}
    for name, edit in {
        "bad-grader": lambda t: (t / "grader.py").write_text(
            "def grade(answer, audit, state)\n    return []\n"
        ),
        "bad-solve": lambda t: (t / "solution" / "solve.py").write_text("def solve(call):\n  return (\n"),
        "bad-yaml": lambda t: (t / "task.yaml").write_text("task_id: [unclosed\n"),
        "bad-field": lambda t: (t / "task.yaml").write_text("task_id: x\n"),
        "bad-list": lambda t: (t / "task.yaml").write_text("- task_id\n- prompt\n"),
        "bad-yaml-bytes": lambda t: (t / "task.yaml").write_bytes(b"task_id: \xff\xfe\n"),
        "bad-grader-bytes": lambda t: (t / "grader.py").write_bytes(b"\xff\xfe"),
        "bad-bomb": lambda t: (t / "task.yaml").write_text(
            "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
            + "".join(
                f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n"
                for p, c in zip("abcdefg", "bcdefgh", strict=True)
            )
            + "task_id: *h\n"
        ),
    }.items():
        task = make_tool_task(root / name)
        edit(task)
        places[name] = str(task)
    places["bad-grader-dir"] = str(root / "bad-grader")
    linked = make_task(root / "link", "linked")
    (linked / "instruction.md").unlink()
    (linked / "instruction.md").symlink_to("/proc/self/environ")
    places["bad-link"] = str(linked)
    places["bad-toml"] = str(make_task(root / "toml", toml="[task\nname = 1\n"))
    places["bad-timeout"] = str(
        make_task(root / "timeout", toml='[task]\nname = "t"\n[verifier]\ntimeout_sec = -5\n')
    )
    for name, damage in {
        "bad-instruction-bytes": lambda t: (t / "instruction.md").write_bytes(b"\xff\xfe Write done.\n"),
        "bad-no-instruction": lambda t: (t / "instruction.md").unlink(),
        "bad-no-tests": lambda t: (t / "tests" / "test.sh").unlink(),
    }.items():
        damage(task := make_task(root / name))
        places[name] = str(task)
    (root / "garbage.jsonl").write_text("\n{not json\n")
    places["bad-jsonl"] = str(root / "garbage.jsonl")
    (root / "bytes.jsonl").write_bytes(b"\xff\xfe{}\n")
    places["bad-bytes-jsonl"] = str(root / "bytes.jsonl")
    (root / "a-file").write_text("")
    places["a-file"] = str(root / "a-file")
    (root / "bad-empty").mkdir()
    places["bad-empty"] = str(root / "bad-empty")
    return places


def _argv(case: Case, tmp: Path, places: dict[str, str]) -> list[str]:
    """The case's arguments with its placeholders filled in; a run also gets its own root folder."""
    args = []
    for arg in case.argv:
        for name, value in sorted(places.items(), key=lambda item: -len(item[0])):
            arg = arg.replace(f"{{{name}}}", value)
        args.append(arg.replace("{tmp}", str(tmp)))
    if args[0] in cli.SUBCOMMANDS:
        return args
    root = [] if any(arg.startswith("paths.root_dir=") for arg in args) else [f"paths.root_dir={tmp}"]
    return [*args, *root, *RUN]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[case.kind for case in CASES])
def test_bad_input_gives_one_line_and_a_non_zero_exit(
    case: Case, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    places = _malformed(tmp_path / "tasks")
    status, out, err = run_in_process(_argv(case, tmp_path, places), capsys)
    assert "Traceback" not in out + err, err
    assert status == case.status, out + err
    if case.status == 1:  # validate: one UNREADABLE line for the bad task, then the count
        lines = [line for line in out.splitlines() if line.startswith("UNREADABLE")]
    else:
        lines = [line for line in err.splitlines() if line.strip()]
        lines = lines[-1:] if lines and lines[0].startswith("usage:") else lines  # argparse: usage, error
    assert len(lines) == 1, out + err
    assert re.search(case.says, lines[0]), lines[0]
    assert not any((tmp_path / ".cache" / store).exists() for store in ("episodes", "lineages"))  # no work
    assert not list(tmp_path.glob("out*")), "an output file was written"
