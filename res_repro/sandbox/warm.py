"""Warm local sandboxes: started off the episode's path, so that opening a sandbox costs only the
workspace copy.

Within :func:`warm_sandboxes`, one process-wide :class:`WarmPool` keeps started local sandboxes whose
shell has answered one command and whose /app is empty, keyed by every setting that shapes that started
state (:func:`warm_key`). :meth:`LocalSandbox.start <res_repro.sandbox.local.LocalSandbox.start>` takes
one of its key when it is ready, and otherwise starts cold as it does outside the block; either way the
pool starts a replacement on a background thread 20 ms later, when the episode's own start is done
(:func:`~res_repro.sandbox.local.deferred`; an episode that asks for one meanwhile claims it and cuts
the wait short), so the next episode of a similar task finds it. A warm sandbox serves one episode and
is closed with it: nothing an episode leaves reaches another.

Warm sandboxes are ordinary local sandboxes (owner labels on their folders, cgroups and processes, closed
at exit like any other), so a run killed with SIGKILL leaves nothing the next sweep misses.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from res_repro.sandbox.base import SandboxSpec
from res_repro.sandbox.local import WARM_SUPPLY, LocalSandbox, background_due, host_secret_masks, wait_until

log = logging.getLogger(__name__)

STARTERS = 2  # background threads starting warm sandboxes, per process

WarmKey = tuple[Any, ...]


def warm_key(spec: SandboxSpec) -> WarmKey:
    """What two specs must share for one's warm sandbox to serve the other: everything but the
    workspace and the Docker-only fields (environment folder, image, cpus); the rest is baked into the
    sandbox's limits, mounts and its shell's command line when the shell starts."""
    return (
        spec.allow_network,
        spec.memory_mb,
        spec.max_file_mb,
        tuple(sorted(spec.env.items())),
        spec.limits,
        spec.aliases,
    )


def blank_spec(spec: SandboxSpec) -> SandboxSpec:
    """``spec`` with an empty /app and no Docker-only fields: the spec of its warm sandboxes."""
    return replace(spec, workspace=None, environment_dir=None, docker_image=None)


_STARTERS: dict[int, ThreadPoolExecutor] = {}  # by process id: a forked child starts its own


def _starters() -> ThreadPoolExecutor:
    """The process's starter threads. They live as long as the process: a sandbox's bubblewrap dies
    with the thread that started it (its parent-death signal follows the thread, not the process)."""
    return _STARTERS.setdefault(
        os.getpid(), ThreadPoolExecutor(max_workers=STARTERS, thread_name_prefix="sandbox-warm")
    )


class _Start:
    """One background start of a warm sandbox; an episode may claim it once a starter thread holds it
    (waiting out its delay, which a claim cuts short, or starting)."""

    def __init__(self, key: WarmKey) -> None:
        self.key = key
        self.held = False  # a starter thread has it
        self.begun = False
        self.claimed = False
        self.hurry = threading.Event()  # set by a claim or the pool's close: the delay is over
        self.done = threading.Event()
        self.result: tuple[LocalSandbox, tuple[str, ...]] | None = None  # for the claimant


class WarmPool:
    """At most ``limit`` warm sandboxes, ready or starting, over all keys; see the module docstring.

    ``served`` counts how each :meth:`take` was answered: ``warm`` (one was ready), ``waited`` (a
    starter thread held one, starting it or waiting out its delay, which the claim cuts short: it is
    ready no later than a cold start begun now would be, and no second start competes for the CPU),
    ``cold`` (none: the caller starts its own) and ``stale`` (one was ready but the host's secret masks
    have changed since its shell started, so it was discarded).
    """

    def __init__(self, limit: int) -> None:
        self.limit = max(1, limit)
        self.served: Counter[str] = Counter()
        self._ready: list[tuple[WarmKey, LocalSandbox, tuple[str, ...]]] = []  # oldest first
        self._starting: list[_Start] = []  # not yet claimed
        self._background: list[Future[None]] = []  # starts and closes on the starter threads
        self._lock = threading.Lock()
        self._closed = False
        self._pid = os.getpid()  # a forked child must not take its parent's sandboxes

    def ready(self) -> int:
        """How many warm sandboxes are ready now, over all keys."""
        with self._lock:
            return len(self._ready)

    def take(self, spec: SandboxSpec) -> LocalSandbox | None:
        """A warm sandbox for ``spec`` (None: start cold), and a replacement started in the background.

        In a process forked from the pool's, always None: the warm sandboxes belong to the parent."""
        if os.getpid() != self._pid:
            return None
        key = warm_key(spec)
        with self._lock:
            found = next((entry for entry in self._ready if entry[0] == key), None)
            claim = None
            if found is not None:
                self._ready.remove(found)
            else:
                claim = next((s for s in self._starting if s.key == key and s.held), None)
                if claim is not None:
                    claim.claimed = True
                    claim.hurry.set()
                    self._starting.remove(claim)
        self._refill(key, spec)
        if claim is not None:
            claim.done.wait()
            found = None if claim.result is None else (key, *claim.result)
            outcome = "waited"
        else:
            outcome = "warm"
        if found is None:
            self._count("cold")
            return None
        _, sandbox, masks = found
        if masks != tuple(host_secret_masks()):
            self._count("stale")
            self._in_background(sandbox.close)
            return None
        self._count(outcome)
        return sandbox

    def _count(self, outcome: str) -> None:
        with self._lock:
            self.served[outcome] += 1

    def _refill(self, key: WarmKey, spec: SandboxSpec) -> None:
        """Start a warm sandbox for ``key`` unless the pool is full; when it is, the oldest ready one of
        another key makes room (a sandbox being started is never dropped)."""
        evicted = None
        with self._lock:
            if self._closed:
                return
            if len(self._ready) + len(self._starting) >= self.limit:
                evicted = next((entry for entry in self._ready if entry[0] != key), None)
                if evicted is None:
                    return
                self._ready.remove(evicted)
            start = _Start(key)
            self._starting.append(start)
        if evicted is not None:
            self._in_background(evicted[1].close)
        self._in_background(self._start, start, blank_spec(spec), background_due())

    def _in_background(self, step: Callable[..., None], *args: Any) -> None:
        """Run ``step`` on a starter thread, kept for :meth:`close` to wait for; at once where no thread
        can start (the interpreter is exiting)."""
        try:
            future = _starters().submit(step, *args)
        except RuntimeError:
            step(*args)
            return
        with self._lock:  # finished ones are dropped as new ones come: a long run keeps only a few
            self._background = [*(f for f in self._background if not f.done()), future]

    def _start(self, start: _Start, spec: SandboxSpec, due: float) -> None:
        """Start one warm sandbox (on a starter thread), not before the monotonic time ``due`` unless a
        claimant or the pool's close hurries it (see :func:`~res_repro.sandbox.local.deferred` for why),
        and hand it to its claimant or the ready list; skipped when the pool closed before it began.
        Whatever happens, its claimant is answered."""
        with self._lock:
            start.held = True
        wait_until(due, start.hurry)
        with self._lock:
            start.begun = not self._closed or start.claimed
        sandbox: LocalSandbox | None = None
        masks: tuple[str, ...] = ()
        try:
            if start.begun:
                masks = tuple(host_secret_masks())  # before the shell builds its own: a change discards it
                candidate = LocalSandbox(spec)
                candidate.warm_up()
                sandbox = candidate
        except Exception as exc:  # whatever went wrong, episodes start their own
            log.warning("a warm sandbox could not start (episodes start their own): %s", exc)
        finally:
            leftover = None
            with self._lock:
                if start.claimed:
                    start.result = None if sandbox is None else (sandbox, masks)
                else:
                    self._starting.remove(start)
                    if sandbox is not None and self._closed:
                        leftover = sandbox
                    elif sandbox is not None:
                        self._ready.append((start.key, sandbox, masks))
            try:
                if leftover is not None:  # the pool closed while it started
                    leftover.close()
            finally:
                start.done.set()

    def close(self) -> None:
        """Stop starting, close every warm sandbox left, and wait until every start and close on the
        starter threads has finished."""
        with self._lock:
            self._closed = True
            ready, self._ready = self._ready, []
            for start in self._starting:
                start.hurry.set()
        for _, sandbox, _ in ready:
            sandbox.close()
        while True:
            with self._lock:
                background, self._background = self._background, []
            if not background:
                return
            wait(background)


@contextmanager
def warm_sandboxes(limit: int) -> Iterator[WarmPool]:
    """Within the block, local sandboxes start from one process-wide pool of at most ``limit`` warm
    sandboxes; at its end every warm sandbox left is closed. Nested blocks share the outermost pool."""
    with WARM_SUPPLY.scope(lambda: WarmPool(limit), lambda pool: pool.close()) as pool:
        assert isinstance(pool, WarmPool)
        yield pool
