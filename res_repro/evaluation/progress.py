"""One labelled progress display per job: a bar on a terminal that stays when done, and plain periodic
log lines (label, done/total, ETA) when the output is piped or in CI."""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

log = logging.getLogger(__name__)

PLAIN_EVERY_S = 60.0  # seconds between plain lines


def _eta(done: int, total: int, elapsed: float) -> str:
    if done == 0 or done >= total:
        return ""
    return f", about {elapsed / done * (total - done):.0f} s left"


@contextmanager
def progress(
    label: str, total: int, *, completed: int = 0, enabled: bool = True, every_s: float = PLAIN_EVERY_S
) -> Iterator[Callable[[], None]]:
    """Yield ``advance()``, called once per finished item: a rich bar labelled ``label`` on a terminal,
    else an INFO line at most every ``every_s`` seconds and one at the end; nothing when not ``enabled``."""
    if not enabled or total == 0:
        yield lambda: None
        return
    if sys.stderr.isatty():
        columns = (TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
        with Progress(*columns) as bar:
            task = bar.add_task(label, total=total, completed=completed)
            yield lambda: bar.advance(task)
        return
    started = last = time.monotonic()
    done = completed

    def advance() -> None:
        nonlocal done, last
        done += 1
        now = time.monotonic()
        if now - last >= every_s and done < total:
            last = now
            log.info(
                "%s: %d/%d%s", label, done, total, _eta(done - completed, total - completed, now - started)
            )

    yield advance
    if done > completed:
        log.info("%s: %d/%d done in %.0f s", label, done, total, time.monotonic() - started)
