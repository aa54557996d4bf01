"""A task's mock HTTP services, started on free ports for one episode and always stopped, or, within
:func:`reusing_services`, kept for the task's next episode and reset to their fixtures before it.

Each service gets a port nobody else holds (the choice and the start happen under a process-wide
lock, and chosen ports stay reserved until the services stop, so parallel episodes never collide).
Every URL that names a declared port is rewritten to ``127.0.0.1:<new port>``; a server that may
still be listening on a declared port is never contacted. Services run from the checkout root in
their own process group, with a minimal environment: none of the harness's secrets reach them, and
they die with the harness (a parent-death signal), so a killed run leaves no service listening.
"""

from __future__ import annotations

import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from res_repro.env.formats.claw_eval_live.task_file import LOCAL_URL, ServiceDef
from res_repro.env.formats.claw_eval_live.transport import send
from res_repro.env.processes import dies_with_parent, minimal_env, output_tail, signal_group
from res_repro.env.services import ServiceError
from res_repro.scopes import ProcessWide

HEALTH_HEADERS = {"X-Health-Check": "1"}
POLL_SECONDS = 0.1
GRACE_SECONDS = 3.0

_PORT_LOCK = threading.Lock()
_RESERVED: set[int] = set()


def _reserve_free_port() -> int:
    """A port free on 127.0.0.1 and not reserved by a running episode (hold ``_PORT_LOCK``)."""
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
        if port not in _RESERVED:
            _RESERVED.add(port)
            return port


def rewrite_url(url: str, ports: Mapping[int, int]) -> str:
    """``url`` with a declared port replaced by its episode port (and the host by 127.0.0.1)."""
    match = LOCAL_URL.match(url)
    if match is None or int(match["port"]) not in ports:
        return url
    return f"http://127.0.0.1:{ports[int(match['port'])]}{match['rest'] or ''}"


def service_command(command: str) -> list[str]:
    """The argv of a service command, with ``python``/``python3`` run by this interpreter."""
    argv = shlex.split(command)
    if argv and argv[0] in {"python", "python3"}:
        argv[0] = sys.executable
    return argv


@dataclass
class _Running:
    """A started service: its definition, episode port, process and captured output."""

    service: ServiceDef
    port: int
    process: subprocess.Popen[bytes]
    log: IO[bytes]

    def stop(self, grace_seconds: float) -> None:
        """SIGTERM the process group, SIGKILL it after the grace period, and reap the process."""
        signal_group(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=grace_seconds)
        except subprocess.TimeoutExpired:
            signal_group(self.process.pid, signal.SIGKILL)
            self.process.wait()
        signal_group(self.process.pid, signal.SIGKILL)  # anything the service forked
        self.log.close()


class ServiceManager:
    """Starts a task's services on free ports, resets and audits them, and stops them on exit.

    Use it as a context manager; services are stopped even when starting one of them fails.
    """

    def __init__(
        self, services: Sequence[ServiceDef], cwd: Path, *, grace_seconds: float = GRACE_SECONDS
    ) -> None:
        self.services = list(services)
        self.cwd = cwd
        self.grace_seconds = grace_seconds
        self.ports: dict[int, int] = {}  # declared port -> episode port
        self._running: list[_Running] = []

    def __enter__(self) -> ServiceManager:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def url(self, url: str) -> str:
        """A task URL as it reaches this episode's services."""
        return rewrite_url(url, self.ports)

    def start(self) -> None:
        """Choose ports and start every service, then wait until each answers its health check."""
        try:
            with _PORT_LOCK:
                for service in self.services:
                    self.ports[service.port] = _reserve_free_port()
                for service in self.services:
                    self._running.append(self._spawn(service))
            for running in self._running:
                self._wait_healthy(running)
        except BaseException:
            self.stop()
            raise

    def _spawn(self, service: ServiceDef) -> _Running:
        port = self.ports[service.port]
        env = minimal_env(
            {"PYTHONPATH": str(self.cwd), "PYTHONDONTWRITEBYTECODE": "1", **service.env, "PORT": str(port)}
        )
        log = tempfile.TemporaryFile()  # noqa: SIM115 (kept open while the service runs; closed by stop)
        try:
            process = subprocess.Popen(
                dies_with_parent(service_command(service.command)),
                cwd=self.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        except OSError as exc:
            log.close()
            raise ServiceError(f"service {service.name!r}: cannot run {service.command!r}: {exc}") from exc
        return _Running(service, port, process, log)

    def _wait_healthy(self, running: _Running) -> None:
        service = running.service
        url = self.url(service.health_check)
        deadline = time.monotonic() + service.ready_timeout
        while True:
            code = running.process.poll()
            if code is not None:
                raise ServiceError(
                    f"service {service.name!r} ({service.command}) exited with status {code} before "
                    f"answering {url}; its output ends with:\n{output_tail(running.log)}"
                )
            if self._healthy(service.health_check_method, url):
                return
            if time.monotonic() > deadline:
                raise ServiceError(
                    f"service {service.name!r} ({service.command}) did not answer {url} within "
                    f"{service.ready_timeout:g} s; its output ends with:\n{output_tail(running.log)}"
                )
            time.sleep(POLL_SECONDS)

    @staticmethod
    def _healthy(method: str, url: str) -> bool:
        try:
            return send(method, url, headers=HEALTH_HEADERS, timeout=1.0).status < 500
        except OSError:
            return False

    def reset(self) -> None:
        """POST every service's reset endpoint: state back to the fixtures, audit emptied."""
        for service in self.services:
            if service.reset_endpoint is None:
                continue
            url = self.url(service.reset_endpoint)
            try:
                reply = send("POST", url, timeout=10.0)
            except OSError as exc:
                raise ServiceError(f"service {service.name!r}: reset at {url} failed: {exc}") from exc
            if reply.status >= 400:
                raise ServiceError(f"service {service.name!r}: reset at {url} answered {reply.status}")

    def _audit(self, endpoint: str) -> Any:
        reply = send("GET", self.url(endpoint), timeout=10.0)
        if reply.status >= 400:
            raise ValueError(f"answered {reply.status}")
        return reply.json()

    def check_running(self) -> None:
        """Raise :class:`ServiceError` when a started service has exited or no longer answers its health
        check (it died or hung during the episode)."""
        for running in self._running:
            service = running.service
            answers = running.process.poll() is None and self._healthy(
                service.health_check_method, self.url(service.health_check)
            )
            if answers:
                continue
            try:  # a process that stopped answering may be in the middle of dying
                code: int | str = running.process.wait(timeout=GRACE_SECONDS)
            except subprocess.TimeoutExpired:
                code = "none (it is alive but does not answer)"
            raise ServiceError(
                f"service {service.name!r} ({service.command}) failed during the episode: exit status "
                f"{code}; its output ends with:\n{output_tail(running.log)}"
            )

    def audits(self) -> tuple[dict[str, Any], dict[str, str]]:
        """Every service's audit JSON by service name, and why any audit could not be read."""
        audits: dict[str, Any] = {}
        errors: dict[str, str] = {}
        for service in self.services:
            if service.audit_endpoint is not None:
                try:
                    audits[service.name] = self._audit(service.audit_endpoint)
                except (OSError, ValueError) as exc:
                    errors[service.name] = f"{self.url(service.audit_endpoint)}: {exc}"
        return audits, errors

    def stop(self) -> None:
        """Stop every started service (last started first) and release the ports."""
        while self._running:
            self._running.pop().stop(self.grace_seconds)
        with _PORT_LOCK:
            _RESERVED.difference_update(self.ports.values())
        self.ports.clear()


def _key(services: Sequence[ServiceDef], cwd: Path) -> tuple[str, ...]:
    """What makes two episodes' services interchangeable: the checkout and every definition."""
    return (str(cwd), *(service.model_dump_json() for service in services))


def resettable(services: Sequence[ServiceDef]) -> bool:
    """Whether every service has a reset endpoint, so that started services can serve another episode."""
    return all(service.reset_endpoint is not None for service in services)


class ServicePool:
    """Started services kept between episodes of the same task and reset before each reuse.

    Only services that all have a reset endpoint are kept. At most ``idle_limit`` sets wait unused; the
    one unused longest is stopped (in the background, off the episode's path) when another set joins.
    """

    def __init__(self, idle_limit: int) -> None:
        self.idle_limit = idle_limit
        self._idle: dict[tuple[str, ...], list[ServiceManager]] = {}
        self._order: list[ServiceManager] = []  # idle sets, least recently released first
        self._lock = threading.Lock()
        self._stopping: list[threading.Thread] = []

    def acquire(self, services: Sequence[ServiceDef], cwd: Path) -> ServiceManager:
        """An idle set of these services, reset to their fixtures, or a newly started one."""
        key = _key(services, cwd)
        with self._lock:
            waiting = self._idle.get(key)
            manager = waiting.pop() if waiting else None
            if manager is not None:
                self._order.remove(manager)
        if manager is not None:
            try:
                manager.reset()
                return manager
            except ServiceError:  # a service died or hung while idle: start afresh
                manager.stop()
        manager = ServiceManager(services, cwd)
        manager.start()
        return manager

    def release(self, manager: ServiceManager, *, reusable: bool) -> None:
        """Keep ``manager`` for the next episode of its task when ``reusable`` and its services allow it;
        otherwise stop it."""
        if not (reusable and resettable(manager.services)):
            manager.stop()
            return
        with self._lock:
            self._idle.setdefault(_key(manager.services, manager.cwd), []).append(manager)
            self._order.append(manager)
            evicted = self._order[: max(len(self._order) - self.idle_limit, 0)]
            for old in evicted:
                self._order.remove(old)
                self._idle[_key(old.services, old.cwd)].remove(old)
        for old in evicted:
            self._stop_later(old)

    def _stop_later(self, manager: ServiceManager) -> None:
        thread = threading.Thread(target=manager.stop, name="res-stop-services", daemon=True)
        thread.start()
        with self._lock:  # finished stops are dropped as new ones come: a long check keeps only a few
            self._stopping = [*(t for t in self._stopping if t.is_alive()), thread]

    def close(self) -> None:
        """Stop every idle set (in parallel) and wait until every stop has finished."""
        with self._lock:
            idle, self._order, self._idle = self._order, [], {}
        for manager in idle:
            self._stop_later(manager)
        with self._lock:
            stopping, self._stopping = self._stopping, []
        for thread in stopping:
            thread.join()


_POOL: ProcessWide[ServicePool] = ProcessWide()  # the pool of the run in progress, if any


@contextmanager
def reusing_services(idle_limit: int) -> Iterator[ServicePool]:
    """Within the block, episodes of the same task share started services (reset between episodes)
    through one process-wide pool; at its end every kept service is stopped.

    Outside such a block every episode starts and stops its own services. Nested blocks share the
    outermost pool.
    """
    with _POOL.scope(lambda: ServicePool(idle_limit), lambda pool: pool.close()) as pool:
        yield pool


@contextmanager
def lease_services(services: Sequence[ServiceDef], cwd: Path) -> Iterator[ServiceManager]:
    """Running services for one episode: from the active :func:`reusing_services` pool (reset to their
    fixtures) or started for the episode alone; given back, or stopped, when the episode ends."""
    pool = _POOL.current
    if pool is None:
        with ServiceManager(services, cwd) as manager:
            yield manager
        return
    manager = pool.acquire(services, cwd)
    reusable = False
    try:
        yield manager
        reusable = True
    finally:
        pool.release(manager, reusable=reusable)
