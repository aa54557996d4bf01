"""Task validation with the reference agents: the oracle must pass and nop must fail.

Every task gets one verdict line, whatever happens to the others: a task file that does not load, a
task without a reference solution, an oracle that fails (and why), a nop that passes, or an
infrastructure error are each their own status.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from res_repro.agents import build_agents
from res_repro.env.errors import TaskFormatError
from res_repro.env.formats import format_of
from res_repro.env.formats.claw_eval_live.services import reusing_services
from res_repro.env.task import Task
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.runner import EpisodeRequest, evaluate
from res_repro.evaluation.store import EpisodeStore
from res_repro.sandbox import backend_name

SCORE_TOLERANCE = 1e-9
NOP_CEILING = 0.5
NO_REFERENCE = "no reference"
SERVICE_SETS_KEPT_PER_WORKER = 2  # idle task services kept for reuse while checking, per worker


def oracle_failure(record: EpisodeRecord) -> str:
    """Why the oracle's episode failed, in a few words (a timeout, no reward file, the verifier's exit)."""
    if record.stop_reason == "time_limit":
        return "the reference solution timed out"
    exits = [m.get("exit_code") for m in record.messages if m.get("role") == "tool" and "exit_code" in m]
    reference = f" after the reference solution exited {exits[-1]}" if exits and exits[-1] != 0 else ""
    evidence = record.grade.evidence if record.grade is not None else {}
    if evidence.get("grader_error"):  # a traceback from a checkout's grader: its last line says what
        return f"the grader failed: {str(evidence['grader_error']).strip().splitlines()[-1]}"
    if evidence.get("timed_out"):
        return "the verifier timed out"
    source = str(evidence.get("source", ""))
    if source.startswith("the verifier wrote no"):
        code = evidence.get("exit_code")
        return f"the verifier wrote no reward file (exit code {code}){reference}"
    if evidence.get("exit_code") not in (None, 0):
        return f"verifier exit code {evidence['exit_code']}, score {record.score:.2f}{reference}"
    if evidence.get("judge") is False:
        return f"score {record.score:.2f} below the pass threshold, graded offline (no judge){reference}"
    return f"score {record.score:.2f}{reference}"


@dataclass(frozen=True)
class TaskValidity:
    """The verdict on one task, with the episodes behind it (``oracle`` is None without a reference)."""

    task_id: str
    oracle: EpisodeRecord | None
    nop: EpisodeRecord

    @property
    def problems(self) -> list[str]:
        """Why the task is invalid; empty when it is valid."""
        if self.oracle is None:
            return [NO_REFERENCE]
        failed = [record for record in (self.oracle, self.nop) if record.infrastructure_failure]
        if failed and len({record.error for record in failed}) == 1 and len(failed) == 2:
            return [f"infrastructure error: {failed[0].error}"]  # the same cause for both, said once
        if failed:
            return [f"{r.agent}: infrastructure error: {r.stop_reason} ({r.error})" for r in failed]
        found = []
        if not self.oracle.passed:
            found.append(f"oracle failed: {oracle_failure(self.oracle)}")
        if self.nop.passed or self.nop.score >= NOP_CEILING:
            found.append(f"nop passed (score {self.nop.score:.2f}, expected below {NOP_CEILING:.2f})")
        return found

    @property
    def infrastructure_error(self) -> bool:
        """True when an episode failed for the infrastructure (an engine down, a sandbox that did not
        start): no verdict on the task, which is reported as ERROR, not INVALID."""
        return any(r is not None and r.infrastructure_failure for r in (self.oracle, self.nop))

    @property
    def valid(self) -> bool:
        """True when the oracle passed, nop scored under 0.5 and failed, with no infrastructure failure.

        "Passed" is the task's own rule: a binary verifier's 1, every rubric item, a native score at the
        benchmark's threshold (Claw-Eval-Live's offline graders cannot always reach 1 without a judge).
        """
        return not self.problems

    def line(self) -> str:
        """One human-readable line for this task."""
        if self.oracle is None:
            return f"{NO_REFERENCE.upper():<12} {self.task_id:<40} nop={self.nop.score:.2f}"
        verdict = "valid" if self.valid else "ERROR" if self.infrastructure_error else "INVALID"
        scores = f"oracle={self.oracle.score:.2f} nop={self.nop.score:.2f}"
        detail = f"  {'; '.join(self.problems)}" if self.problems else ""
        if self.valid and self.oracle.score < 1.0 - SCORE_TOLERANCE:
            detail = "  (the oracle passes by the task's rule, below a full score)"
        return f"{verdict:<12} {self.task_id:<40} {scores}{detail}"


@dataclass(frozen=True)
class Refused:
    """A task its format cannot run on this sandbox backend: nothing was run."""

    task_id: str
    reason: str
    valid = False

    def line(self) -> str:
        """One line naming the task and why."""
        return f"{'REFUSED':<12} {self.task_id:<40} {self.reason}"


@dataclass(frozen=True)
class LoadFailure:
    """A task whose files did not load: nothing was run."""

    error: TaskFormatError
    valid = False

    def line(self) -> str:
        """One line naming the file and what was wrong."""
        return f"{'UNREADABLE':<12} {self.error}"


def check_tasks(
    tasks: Sequence[Task], *, backend: str, store: EpisodeStore, workers: int = 1
) -> list[TaskValidity | Refused]:
    """Run oracle (where there is a reference) and nop on every task the backend can run; one verdict per
    task, in order."""
    refusals = {task.task_id: format_of(task).refusal(task, backend_name(backend)) for task in tasks}
    runnable = [task for task in tasks if refusals[task.task_id] is None]
    checked = iter(_check_runnable(runnable, backend=backend, store=store, workers=workers))
    return [
        Refused(task.task_id, reason) if (reason := refusals[task.task_id]) else next(checked)
        for task in tasks
    ]


def _check_runnable(
    tasks: Sequence[Task], *, backend: str, store: EpisodeStore, workers: int
) -> list[TaskValidity]:
    """Both episodes of a task run close together (the tasks in groups of ``workers``: their nops,
    then their oracles), so that the oracle finds the services its task's nop used, reset, in the pool
    of :func:`reusing_services` instead of starting them again."""
    with_reference = [format_of(task).has_reference(task) for task in tasks]
    requests: list[EpisodeRequest] = []
    nop_at: list[int] = []
    oracle_at: dict[int, int] = {}
    for start in range(0, len(tasks), workers):
        group = range(start, min(start + workers, len(tasks)))
        for index in group:
            nop_at.append(len(requests))
            requests.append(EpisodeRequest(tasks[index], "nop", role="check"))
        for index in (i for i in group if with_reference[i]):
            oracle_at[index] = len(requests)
            requests.append(EpisodeRequest(tasks[index], "oracle", role="check"))
    with reusing_services(idle_limit=SERVICE_SETS_KEPT_PER_WORKER * workers):
        records = evaluate(
            requests, agents=build_agents(["oracle", "nop"]), backend=backend, store=store, workers=workers
        )
    return [
        TaskValidity(
            task.task_id,
            oracle=records[oracle_at[index]] if index in oracle_at else None,
            nop=records[nop_at[index]],
        )
        for index, task in enumerate(tasks)
    ]


def summary_line(verdicts: Sequence[TaskValidity | LoadFailure | Refused]) -> str:
    """The closing line: ``N tasks: M valid`` and the count of each other status."""
    counts = {
        "not checked (infrastructure error)": sum(
            isinstance(v, TaskValidity) and v.infrastructure_error for v in verdicts
        ),
        "no reference": sum(isinstance(v, TaskValidity) and v.oracle is None for v in verdicts),
        "refused": sum(isinstance(v, Refused) for v in verdicts),
        "unreadable": sum(isinstance(v, LoadFailure) for v in verdicts),
    }
    valid = sum(v.valid for v in verdicts)
    invalid = len(verdicts) - valid - sum(counts.values())
    parts = [f"{valid} valid"] + ([f"{invalid} invalid"] if invalid else [])
    parts += [f"{n} {name}" for name, n in counts.items() if n]
    return f"{len(verdicts)} tasks: {', '.join(parts)}"
