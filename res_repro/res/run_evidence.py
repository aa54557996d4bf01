"""What a run of an environment shows, in words a proposer can act on: the calls it made and their
results (a trace), and why it failed (the failing calls, the program's own failure, the grader's failed
items, the verifier's output).

Both read an :class:`~res_repro.evaluation.episode.EpisodeRecord`: a reference run records each call it
makes and the tool's result (see ``run_reference_program``), a Terminal reference its script's output,
and every grade its evidence. Nothing here names a host path: records hold only what the environment
showed.
"""

from __future__ import annotations

from collections.abc import Iterator

from res_repro.evaluation.episode import EpisodeRecord

RESULT_CHARS = 400  # of each call's result a trace shows
CAUSE_CHARS = 1200  # the bound on a cause


def _cut(text: str, limit: int) -> str:
    text = " ".join(text.split()) if "\n" not in text[:limit] else text
    return text if len(text) <= limit else f"{text[:limit]} [...]"


def calls(record: EpisodeRecord) -> Iterator[tuple[str, str, str]]:
    """(tool, arguments as JSON text, result text) of each call the run made, in order; a Terminal
    reference's script counts as one call (its name, and its exit code and output as the result)."""
    results = {
        m.get("tool_call_id"): str(m.get("content") or "") for m in record.messages if m.get("role") == "tool"
    }
    for message in record.messages:
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            yield (
                str(function.get("name")),
                str(function.get("arguments") or "{}"),
                results.get(call.get("id"), ""),
            )
        if message.get("role") == "tool" and "exit_code" in message:
            yield str(message.get("name")), "", f"exit {message['exit_code']}: {message.get('content') or ''}"


def _program_failure(record: EpisodeRecord) -> str | None:
    """The reference program's own failure message (an unhandled tool error, a crash), if any."""
    for message in record.messages:
        if message.get("role") == "tool" and "tool_call_id" not in message and "exit_code" not in message:
            return str(message.get("content") or "")
    return None


def failed_items(record: EpisodeRecord) -> list[str]:
    """The grader's failed items: weighted checks, rubric items, Claw-Eval-Live's dimensions below 1, a
    grader error, or a failing verifier's output."""
    grade = record.grade
    if grade is None:
        return []
    items = [
        str(c.get("name"))
        for c in grade.evidence.get("checks", ())
        if isinstance(c, dict) and not c.get("passed")
    ]
    items += [item.name for item in grade.rubric if not item.passed]
    dimensions = grade.evidence.get("dimensions") or {}
    items += [
        f"{name} {value:.2f}"
        for name, value in dimensions.items()
        if name != "completion" and isinstance(value, int | float) and value < 1
    ]
    if grade.evidence.get("grader_error"):
        items.append(f"grader error: {_cut(str(grade.evidence['grader_error']), 300)}")
    if not grade.passed and grade.evidence.get("output"):
        items.append(f"verifier output: {_cut(str(grade.evidence['output'])[-600:], 600)}")
    return items


def verdict(record: EpisodeRecord) -> str:
    """The run's result in a few words: its score and verdict, or its infrastructure failure."""
    if record.infrastructure_failure:
        return f"{record.stop_reason}: {record.error}"
    return f"score {record.score:.2f}, {'passed' if record.passed else 'failed'}"


def failure_cause(record: EpisodeRecord, limit: int = CAUSE_CHARS) -> str:
    """Why the run did not pass, as the run showed it: the calls that answered with an error (the last
    three), the program's own failure, and the grader's failed items; bounded to ``limit``."""
    parts = []
    errors = [
        (tool, arguments, result) for tool, arguments, result in calls(record) if result.startswith("error ")
    ]
    for tool, arguments, result in errors[-3:]:
        parts.append(f"call {tool}({_cut(arguments, 200)}) -> {_cut(result, 300)}")
    failure = _program_failure(record)
    if failure:
        parts.append(_cut(failure, 400))
    items = failed_items(record)
    if items:
        parts.append("grader failed: " + "; ".join(items[:8]))
    return _cut(" | ".join(parts), limit) if parts else ""


def explained(record: EpisodeRecord) -> str:
    """:func:`verdict`, with :func:`failure_cause` when the run did not pass."""
    cause = "" if record.passed or record.infrastructure_failure else failure_cause(record)
    return f"{verdict(record)} ({cause})" if cause else verdict(record)


def render_trace(record: EpisodeRecord, budget: int) -> str:
    """The run as numbered lines (each call with its arguments and the start of its result), then its
    answer and grade; cut to ``budget`` characters, saying so."""
    lines = [
        f"{n}. {tool}({arguments}) -> {_cut(result, RESULT_CHARS)}"
        for n, (tool, arguments, result) in enumerate(calls(record), 1)
    ]
    failure = _program_failure(record)
    if failure:
        lines.append(f"the program stopped: {_cut(failure, 400)}")
    if record.answer:
        lines.append(f"answer: {_cut(record.answer, 600)}")
    lines.append(f"grade: {explained(record)}")
    text = "\n".join(lines)
    if len(text) > budget:
        text = f"{text[:budget]}\n[trace cut: {budget} of {len(text)} characters shown]"
    return text
