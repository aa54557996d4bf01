"""The Docker backend: one container per sandbox, commands run by a runner shell inside it.

The container idles on a small supervisor shell under Docker's init (which reaps orphans), has no
network unless the spec allows it, and gets the spec's memory, CPU and file-size limits plus the
configured cap on process count (``--pids-limit``). /app and /tmp are tmpfs-backed volumes of the
configured workspace size (the image's /app is copied in: read once per image and process, from a
created and never started container), so filling them fills no host disk; /dev/shm has the same size.
Its environment holds the image's variables and the spec's, never the harness's.

Each command is one line to a persistent runner shell (:mod:`.docker_exec`): one engine round trip
instead of an exec's three API calls. Timeouts and the output kill limit are enforced from the host:
every command carries a marker variable, and a second exec freezes and kills everything the runner
started, its descendants and any marked orphan (a daemon that detached itself). When the process limit
leaves no room for that exec, the supervisor is signalled instead and kills every process but itself
and init. Output is read in chunks and kept up to the cap. Close removes the container and its volumes.
"""

from __future__ import annotations

import atexit
import errno
import io
import itertools
import os
import posixpath
import secrets
import tarfile
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from res_repro.sandbox.base import (
    AGENT_LOGS_DIR,
    APP_DIR,
    MAX_SYMLINKS,
    SOLUTION_DIR,
    TESTS_DIR,
    TMP_DIR,
    VERIFIER_LOGS_DIR,
    ExecResult,
    FramedShell,
    Sandbox,
    SandboxError,
    SandboxSpec,
    ShellFraming,
    sandbox_path,
)
from res_repro.sandbox.docker_exec import CommandRunner, ExecStream, boot_ticks
from res_repro.sandbox.docker_images import build_environment_image, ensure_image
from res_repro.sandbox.owner import OWNER_LABEL, current_owner

if TYPE_CHECKING:
    import docker

# The container's main process: idles, and on SIGUSR1 kills every process but itself and init (kill
# is a shell builtin, so this works when the process limit allows no new process).
SUPERVISOR = 'trap "kill -KILL -1" USR1; while :; do sleep 2147483647 & wait; done'
IDLE_COMMAND = ["sh", "-c", SUPERVISOR]
DEFAULT_DOCKER_HOST = "unix:///var/run/docker.sock"
ENGINE_HINT = "start dockerd or set DOCKER_HOST"
BASE_ENV = {"TERM": "dumb"}  # added to the image's own variables
MARKER_VAR = "RES_EXEC"  # set in every command's environment; inherited by whatever it starts
EXHAUSTED_SHARE = 0.9  # above this share of the pids limit in use, a timeout kills every process
CAPPED_FOLDERS = {"/app": "0755", "/tmp": "1777"}  # tmpfs volumes of the configured workspace size
KILLED_EXIT_CODE = -9
SEEDS_KEPT = 8  # images whose /app is kept in memory (a start then needs no second container)
SEED_KEPT_BYTES = 8 << 20  # an image /app larger than this is streamed at each start, never kept
TAR_CHUNK = 1 << 20  # bytes of an archive handed to the engine at a time

# Runs as ``sh -c KILL_TREE sh <VAR=marker> [runner] [since]``. The roots are the processes Docker
# started (parent 0) or that were orphaned (parent 1) whose environment holds the marker or that started
# at or after ``since`` (clock ticks since boot: a daemon that cleared its environment with ``env -i``
# is found by when it started), and every process the given command runner started (it runs one
# command at a time); the script stops them and their descendants until the set no longer grows (a
# stopped process cannot fork), then kills them all, and prints how many processes the container has
# left. It fails when it cannot fork. Writes no file (the disk may be full) and uses only sh, tr, grep,
# awk and sort.
KILL_TREE = r"""
mark="$1"
runner="${2:--}"
since="${3:--1}"
self=$$  # this script is an exec started since, too
tree() {
  for s in /proc/[0-9]*/stat; do
    read -r line < "$s" 2>/dev/null || continue
    p=${s#/proc/}; p=${p%/stat}
    set -- ${line##*) }
    m=0
    case "$2" in
      0|1) [ "$p" != 1 ] && [ "$p" != "$self" ] && { [ "$since" -ge 0 ] && [ "${20}" -ge "$since" ] ||
             tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "$mark"; } && m=1;;
      "$runner") m=1;;
    esac
    echo "$p $2 $m"
  done | awk '{ parent[$1] = $2; if ($3 == 1) queue[++n] = $1 }
    END { for (i = 1; i <= n; i++) {
            print queue[i]
            for (p in parent) if (parent[p] == queue[i]) queue[++n] = p } }' | sort -n
}
seen=""
while :; do
  pids=$(tree) || exit 1
  kill -STOP $pids 2>/dev/null
  [ "$pids" = "$seen" ] && break
  seen=$pids
done
kill -KILL $pids 2>/dev/null
set -- /proc/[0-9]*
echo $#
"""

_LIVE: set[DockerSandbox] = set()  # open sandboxes, closed at exit if the caller did not
UNREAD, STREAMED = "unread", "streamed"  # an image's /app not read yet; too large to keep
# image id -> the tar of its /app, None (no /app) or STREAMED
_SEEDS: OrderedDict[str, bytes | str | None] = OrderedDict()
_SEEDS_LOCK = threading.Lock()


def _remember_seed(image_id: str, seed: bytes | str | None) -> None:
    """Keep what an image's /app is (see :meth:`DockerSandbox._seed_app`), for :data:`SEEDS_KEPT` images."""
    with _SEEDS_LOCK:
        _SEEDS[image_id] = seed
        while len(_SEEDS) > SEEDS_KEPT:
            _SEEDS.popitem(last=False)


@atexit.register
def _close_live_sandboxes() -> None:
    """Remove every container still running when the interpreter exits normally."""
    for sandbox in list(_LIVE):
        sandbox.close()


def connect() -> docker.DockerClient:
    """A client for the engine named by the environment, or a SandboxError saying how to get one."""
    import docker

    host = os.environ.get("DOCKER_HOST") or DEFAULT_DOCKER_HOST
    if host.startswith("unix://") and not os.path.exists(host.removeprefix("unix://")):
        raise SandboxError(f"cannot reach the Docker engine (no socket at {host}); {ENGINE_HINT}")
    try:
        client = docker.from_env()
        client.ping()
    except Exception as exc:
        reason = f"{type(exc).__name__}: {exc}"
        raise SandboxError(f"cannot reach the Docker engine ({reason}); {ENGINE_HINT}") from exc
    return client


@contextmanager
def engine_errors(action: str) -> Iterator[None]:
    """Report a Docker engine failure during ``action`` as a SandboxError (an infrastructure failure)."""
    import docker.errors

    try:
        yield
    except docker.errors.DockerException as exc:
        raise SandboxError(f"docker: {action} failed: {exc}") from exc


def _tar(members: list[tuple[tarfile.TarInfo, bytes | None]]) -> bytes:
    """A tar archive (in memory) of the given members."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for info, data in members:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buffer.getvalue()


def _as_root(info: tarfile.TarInfo) -> tarfile.TarInfo:
    """Make a tar member owned by root inside the container."""
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


def _dir_tar(host_dir: Path) -> Iterator[bytes]:
    """A tar of the contents of ``host_dir`` (symlinks kept as symlinks, owned by root), yielded in chunks
    as a thread writes it: a large workspace is never held whole in the harness's memory. A file that
    cannot be read raises here, after the chunks before it."""
    read_fd, write_fd = os.pipe()
    failure: list[BaseException] = []

    def produce() -> None:
        with os.fdopen(write_fd, "wb") as sink:
            try:
                with tarfile.open(fileobj=sink, mode="w|") as tar:
                    for child in sorted(host_dir.iterdir()):
                        tar.add(child, arcname=child.name, filter=_as_root)
            except BrokenPipeError:  # the reader stopped (the engine refused the copy)
                pass
            except BaseException as exc:  # raised again in the reader
                failure.append(exc)

    writer = threading.Thread(target=produce, name="sandbox-tar", daemon=True)
    writer.start()
    with os.fdopen(read_fd, "rb") as source:
        while chunk := source.read(TAR_CHUNK):
            yield chunk
    writer.join()
    if failure:
        raise SandboxError(f"cannot copy {host_dir} into the sandbox: {failure[0]}") from failure[0]


def owner_labels() -> dict[str, str]:
    """The labels of every container and volume this process creates: ours, and who owns it (so that a
    later run removes them if this one is killed, see :mod:`res_repro.sandbox.stale`)."""
    return {"res-repro.sandbox": "1", OWNER_LABEL: current_owner().label()}


def capped_mounts(size_mb: int) -> list[Any]:
    """Anonymous tmpfs-backed volumes of ``size_mb`` for the :data:`CAPPED_FOLDERS` (removed with the
    container), labelled with their owner."""
    from docker.types import DriverConfig, Mount

    return [
        Mount(
            folder,
            None,
            type="volume",
            labels=owner_labels(),
            driver_config=DriverConfig(
                "local", {"type": "tmpfs", "device": "tmpfs", "o": f"size={size_mb}m,mode={mode}"}
            ),
        )
        for folder, mode in CAPPED_FOLDERS.items()
    ]


def _no_space(exc: Exception) -> bool:
    """Whether an engine error reports a full file system."""
    return "no space left on device" in str(exc).lower()


class DockerSandbox(Sandbox):
    """A sandbox that is one Docker container; see the module docstring."""

    def __init__(self, spec: SandboxSpec, client: docker.DockerClient | None = None) -> None:
        self.spec = spec
        self._client = client
        self._owns_client = client is None
        self._container: Any = None
        self._shell: DockerShell | None = None
        self._runners: list[CommandRunner] = []  # idle command runners
        self._runners_lock = threading.Lock()

    # -- lifecycle -------------------------------------------------------------------------------------

    @property
    def client(self) -> docker.DockerClient:
        """The Docker client (connected on first use)."""
        if self._client is None:
            self._client = connect()
        return self._client

    def _require_started(self) -> str:
        """Return the container id, or raise when the sandbox is not started."""
        if self._container is None:
            raise SandboxError("the sandbox is not started (call start() or use it as a context manager)")
        return self._container.id

    @property
    def container_id(self) -> str:
        """The id of the running container."""
        return self._require_started()

    def image(self) -> str:
        """The image to run: the spec's prebuilt image (pulled when missing), else one built from its
        environment folder."""
        if self.spec.docker_image:
            return ensure_image(self.client, self.spec.docker_image)
        if self.spec.environment_dir is not None:
            return build_environment_image(self.client, self.spec.environment_dir)
        raise SandboxError("the docker backend needs spec.docker_image or spec.environment_dir/Dockerfile")

    def start(self) -> None:
        """Start the container, create the Harbor folders and copy the workspace into /app."""
        if self._container is not None:
            return
        import docker.errors
        from docker.types import Ulimit

        file_limit = self.spec.max_file_mb << 20
        try:
            image = self.image()
            # create, then start: a container that fails to start is then ours to remove at close
            self._container = self.client.containers.create(
                image,
                entrypoint=IDLE_COMMAND[:1],
                command=IDLE_COMMAND[1:],
                init=True,
                network_mode=None if self.spec.allow_network else "none",
                mem_limit=f"{self.spec.memory_mb}m",
                nano_cpus=int(self.spec.cpus * 1e9),
                pids_limit=self.spec.limits.pids,
                mounts=capped_mounts(self.spec.limits.workspace_mb),
                shm_size=f"{self.spec.limits.workspace_mb}m",
                ulimits=[
                    Ulimit(name="fsize", soft=file_limit, hard=file_limit),
                    Ulimit(name="core", soft=0, hard=0),
                ],
                working_dir=APP_DIR,
                environment={**BASE_ENV, **self.spec.env},
                labels=owner_labels(),
            )
            self._container.start()
        except docker.errors.DockerException as exc:
            self.close()
            raise SandboxError(f"cannot start a container: {exc}") from exc
        _LIVE.add(self)
        with self.closed_on_failure("cannot prepare the container's folders"):
            self._prepare(self._container.attrs["Image"])

    def _prepare(self, image_id: str) -> None:
        """Copy the image's /app into its capped volume, create the Harbor folders, add the workspace."""
        self._seed_app(image_id)
        folders = (APP_DIR, TESTS_DIR, SOLUTION_DIR, VERIFIER_LOGS_DIR, AGENT_LOGS_DIR, TMP_DIR)
        links = [f"ln -sfn {sandbox_path(target)} {link}" for link, target in self.spec.aliases]
        setup = " && ".join([f'mkdir -p "$@" && chmod 1777 {TMP_DIR}', *links])
        done = self.exec(["sh", "-c", setup, "sh", *folders], 60.0)
        if not done.ok:
            raise SandboxError(
                f"preparing the container's folders failed ({done.exit_code}): {done.stderr[-500:]}"
            )
        if self.spec.workspace is not None:
            self.put_dir(self.spec.workspace, APP_DIR)

    def _seed_app(self, image_id: str) -> None:
        """Copy /app as the image has it (the capped volume mounted there hides it) into the volume.

        The first start of an image reads it from a created, never started container; an /app of at most
        :data:`SEED_KEPT_BYTES` is kept in memory (for :data:`SEEDS_KEPT` images) so later starts need
        no second container; a larger one is streamed from such a container at every start, never held.
        """
        import docker.errors

        with _SEEDS_LOCK:
            known = _SEEDS.get(image_id, UNREAD)
            if image_id in _SEEDS:
                _SEEDS.move_to_end(image_id)
        if known is None:
            return
        if isinstance(known, bytes):
            self._put_archive("/", known)
            return
        api = self.client.api
        with engine_errors(f"reading the image's {APP_DIR}"):
            created = api.create_container(
                image_id, entrypoint=IDLE_COMMAND[:1], command=IDLE_COMMAND[1:], labels=owner_labels()
            )["Id"]
        try:
            try:
                chunks = iter(api.get_archive(created, APP_DIR, chunk_size=TAR_CHUNK)[0])
            except docker.errors.NotFound:
                _remember_seed(image_id, None)
                return
            head: list[bytes] = []
            if known is UNREAD:
                for chunk in chunks:
                    head.append(chunk)
                    if sum(map(len, head)) > SEED_KEPT_BYTES:
                        break
                else:
                    seed = b"".join(head)
                    _remember_seed(image_id, seed)
                    self._put_archive("/", seed)
                    return
            _remember_seed(image_id, STREAMED)
            self._put_archive("/", itertools.chain(head, chunks))
        finally:
            with suppress(docker.errors.DockerException):
                api.remove_container(created, force=True)

    def close(self) -> None:
        """Kill and remove the container (idempotent)."""
        import docker.errors

        if self._shell is not None:
            self._shell.release()
            self._shell = None
        with self._runners_lock:
            runners, self._runners = self._runners, []
        for runner in runners:
            runner.close()
        container, self._container = self._container, None
        if container is not None:
            with suppress(docker.errors.NotFound, docker.errors.APIError):
                container.remove(force=True, v=True)
        if self._owns_client and self._client is not None:
            self._client.close()
            self._client = None
        _LIVE.discard(self)

    # -- processes -------------------------------------------------------------------------------------

    def run_quietly(self, argv: list[str]) -> bytes:
        """Run a short helper command to completion; return its stdout or raise SandboxError on failure."""
        api = self.client.api
        with engine_errors(f"running {argv[0]}"):
            exec_id = api.exec_create(self.container_id, argv, stdout=True, stderr=True)["Id"]
            out, err = api.exec_start(exec_id, demux=True)
            code = api.exec_inspect(exec_id)["ExitCode"]
        if code != 0:
            raise SandboxError(f"{argv[0]} failed in the container ({code}): {(err or b'').decode()[-500:]}")
        return out or b""

    def attach(
        self, argv: list[str], *, cwd: str, env: dict[str, str] | None, stdin: bool, marker: str
    ) -> ExecStream:
        """Start ``argv`` as an exec in the container (``marker`` in its environment); return its stream."""
        with engine_errors("starting a command"):
            exec_id = self.client.api.exec_create(
                self.container_id,
                argv,
                stdin=stdin,
                stdout=True,
                stderr=True,
                workdir=cwd,
                environment={**BASE_ENV, **self.spec.env, **(env or {}), MARKER_VAR: marker},
            )["Id"]
            return ExecStream(self.client.api, exec_id)

    def kill_tree(self, marker: str, runner: str = "", since: int | None = None) -> None:
        """Kill the command whose environment carries ``marker``, its descendants and marked orphans.

        With ``runner`` (a command runner's process id), every process that runner started is killed too;
        with ``since`` (:func:`boot_ticks` when the command started), every orphan started since then.

        When the process limit is (nearly) exhausted, no precise kill is possible (the kill command may
        not even start): then every process but the supervisor and init is killed.
        """
        try:
            since_arg = str(since) if since is not None else "-1"
            left = self.run_quietly(
                ["sh", "-c", KILL_TREE, "sh", f"{MARKER_VAR}={marker}", runner, since_arg]
            )
            exhausted = int(left.strip() or 0) >= EXHAUSTED_SHARE * self.spec.limits.pids
        except (SandboxError, ValueError):
            exhausted = True
        if exhausted:
            self.kill_all()

    def kill_all(self) -> None:
        """Have the supervisor SIGKILL every process in the container except itself and init."""
        with engine_errors("signalling the supervisor"):
            self.client.api.kill(self.container_id, signal="SIGUSR1")

    def exit_code(self, exec_id: str, wait: float = 2.0) -> int:
        """The exit status of a finished exec (-1 when Docker does not report one in time)."""
        import docker.errors

        deadline = time.perf_counter() + wait
        while True:
            try:
                info = self.client.api.exec_inspect(exec_id)
            except docker.errors.APIError:  # the container is gone (closed meanwhile)
                return -1
            if not info["Running"] and info["ExitCode"] is not None:
                return int(info["ExitCode"])
            if time.perf_counter() > deadline:
                return -1
            time.sleep(0.005)

    def exec(
        self,
        command: str | list[str],
        timeout: float,
        *,
        cwd: str = APP_DIR,
        env: dict[str, str] | None = None,
        output_cap: int | None = None,
    ) -> ExecResult:
        """Run one command through a runner shell (a string goes to ``sh -c``); see :meth:`Sandbox.exec`."""
        argv = ["sh", "-c", command] if isinstance(command, str) else list(command)
        started = time.perf_counter()
        runner = self._take_runner()
        try:
            done = runner.run(
                argv,
                cwd=cwd,
                env=env or {},
                cap=self.spec.output_cap(output_cap),
                kill_after=self.spec.limits.output_kill_bytes,
                deadline=started + timeout,
            )
        except OSError as exc:  # the runner's connection broke
            runner.close()
            raise SandboxError(f"docker: running a command failed: {exc}") from exc
        self._return_runner(runner)
        killed = done.timed_out or done.flooded
        out, err = done.stdout.output, done.stderr.output
        return ExecResult(
            exit_code=KILLED_EXIT_CODE if killed else -1 if done.status is None else done.status,
            stdout=out.text(),
            stderr=err.text(),
            timed_out=done.timed_out,
            truncated=out.truncated or err.truncated,
            seconds=time.perf_counter() - started,
            output_bytes=out.total + err.total,
            output_killed=done.flooded,
        )

    def _take_runner(self) -> CommandRunner:
        """An idle command runner, or a new one when every runner is busy (commands run at once)."""
        self._require_started()
        while True:
            with self._runners_lock:
                idle = self._runners.pop() if self._runners else None
            if idle is None:
                break
            if not idle.ended():
                return idle
            idle.close()
        with engine_errors("starting the command runner"):
            try:
                return CommandRunner(self._attach_runner, self.kill_tree, MARKER_VAR)
            except OSError as exc:
                raise SandboxError(f"docker: the command runner did not start: {exc}") from exc

    def _attach_runner(self, argv: list[str], marker: str) -> ExecStream:
        """Start a runner shell's exec (stdin attached) in /app."""
        return self.attach(argv, cwd=APP_DIR, env=None, stdin=True, marker=marker)

    def _return_runner(self, runner: CommandRunner) -> None:
        """Keep a runner that is still usable for the next command; drop one that is not."""
        with self._runners_lock:
            if runner.alive and self._container is not None:
                self._runners.append(runner)
                return
        runner.close()

    def shell(self) -> DockerShell:
        """The persistent ``sh`` of this sandbox (started on first use)."""
        if self._shell is None:
            self._require_started()
            self._shell = DockerShell(self)
        return self._shell

    # -- files -----------------------------------------------------------------------------------------

    def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        """Create or replace the file at ``path``; parent folders are created."""
        target = sandbox_path(path)
        parent, name = posixpath.split(target)
        payload = data.encode() if isinstance(data, str) else data
        info = _as_root(tarfile.TarInfo(name))
        info.size, info.mode, info.mtime = len(payload), mode, int(time.time())
        self._put_archive(parent, _tar([(info, payload)]))

    def read_file(self, path: str, limit: int | None = None) -> bytes:
        """Return the bytes of the regular file at ``path`` (a final symlink is followed in the sandbox;
        its first ``limit`` bytes when given, read from the engine's stream and no further)."""
        target = sandbox_path(path)
        for _ in range(MAX_SYMLINKS):
            member, data = self._get_member(target, limit)
            if not member.issym():
                if member.isdir():
                    raise IsADirectoryError(path)
                if not member.isfile():
                    raise SandboxError(f"{path!r} is not a regular file")
                return data
            link = posixpath.join(posixpath.dirname(target), member.linkname)
            try:
                target = sandbox_path(link)
            except SandboxError:
                raise SandboxError(f"{path!r} links to {link!r}, outside the transfer folders") from None
        raise SandboxError(f"too many levels of symbolic links in {path!r}")

    def put_dir(self, host_dir: Path, path: str) -> None:
        """Copy the contents of ``host_dir`` into ``path``; symlinks are copied as symlinks. The archive is
        streamed to the engine as it is written."""
        self._put_archive(sandbox_path(path), lambda: _dir_tar(Path(host_dir)))

    def _put_archive(
        self, folder: str, archive: bytes | Iterator[bytes] | Callable[[], Iterator[bytes]]
    ) -> None:
        """Unpack ``archive`` (bytes, a stream of chunks, or a function making one) into the container
        folder ``folder``; the folder is created when missing (a stream handed over as such must go into a
        folder that exists, since it cannot be sent twice).

        A full workspace raises ``OSError(ENOSPC)``, as a local write would.
        """
        import docker.errors

        def body() -> bytes | Iterator[bytes]:
            return archive() if callable(archive) else archive

        try:
            try:
                self.client.api.put_archive(self.container_id, folder, first := body())
            except docker.errors.NotFound:
                if not isinstance(first, bytes | bytearray):
                    first.close()  # type: ignore[union-attr]  # ends the writer of an unsent stream
                    if not callable(archive):
                        raise
                self.run_quietly(["mkdir", "-p", folder])
                self.client.api.put_archive(self.container_id, folder, body())
        except docker.errors.APIError as exc:
            if _no_space(exc):
                raise OSError(errno.ENOSPC, f"no space left in the sandbox writing to {folder}") from exc
            raise SandboxError(f"docker: copying into {folder} failed: {exc}") from exc

    def _get_member(self, path: str, limit: int | None = None) -> tuple[tarfile.TarInfo, bytes]:
        """The tar member Docker returns for ``path`` and, for a regular file, its bytes (the first
        ``limit``): the archive is read as a stream, so no more of it than that is held."""
        import docker.errors

        try:
            chunks, _ = self.client.api.get_archive(self.container_id, path)
            stream = _ChunkStream(iter(chunks))
            with tarfile.open(fileobj=stream, mode="r|") as tar:
                member = tar.next()
                if member is None:
                    raise SandboxError(f"docker returned an empty archive for {path}")
                handle = tar.extractfile(member) if member.isfile() else None
                return member, (handle.read() if limit is None else handle.read(limit)) if handle else b""
        except docker.errors.NotFound:
            raise FileNotFoundError(f"no such file in the sandbox: {path}") from None


class _ChunkStream(io.RawIOBase):
    """A readable file over an iterator of byte chunks (the engine's archive stream), read on demand."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._left = b""

    def readable(self) -> bool:
        """It is."""
        return True

    def readinto(self, buffer: Any) -> int:
        """Fill ``buffer`` from the next chunks; 0 at the end of the stream."""
        while not self._left:
            try:
                self._left = next(self._chunks)
            except StopIteration:
                return 0
        size = min(len(buffer), len(self._left))
        buffer[:size], self._left = self._left[:size], self._left[size:]
        return size


class DockerShell(FramedShell):
    """A persistent ``sh`` in the container, driven over an attached exec's stdin and stdout.

    Each command is written to a file in the container's /tmp through a here-document and sourced (see
    :class:`ShellFraming`); stderr is joined to stdout.
    """

    def __init__(self, sandbox: DockerSandbox) -> None:
        self._sandbox = sandbox
        self._limits = sandbox.spec.limits
        self._stream: ExecStream | None = None
        self._framing = ShellFraming("")
        self._nonce = ""
        self._since: int | None = None  # when the running command was sent (boot_ticks)

    def _start(self) -> ExecStream:
        """Start the shell with a fresh marker, by which a timeout finds its tree."""
        self._nonce = secrets.token_hex(12)
        self._framing = ShellFraming(f"__res_done_{self._nonce}")
        argv = ["sh", "-c", "exec sh 2>&1"]
        self._stream = self._sandbox.attach(argv, cwd=APP_DIR, env=None, stdin=True, marker=self._nonce)
        return self._stream

    def _input(self, command: str) -> bytes:
        """The shell input that stores ``command`` in the script file and sources it.

        The file is sourced only when it was stored whole: on a full /tmp, ``cat``'s error and status
        come back instead of a truncated command being run.
        """
        script = f"{TMP_DIR}/.res_shell_{self._nonce}"
        delimiter = f"__res_eof_{secrets.token_hex(8)}"
        while delimiter in command:
            delimiter = f"__res_eof_{secrets.token_hex(8)}"
        store = f"rm -f {script}; cat > {script} <<'{delimiter}' && ".encode()
        return store + self._framing.command_line(script) + f"{command}\n{delimiter}\n".encode()

    def _send(self, command: str) -> ExecStream:
        """Hand ``command`` to the shell, restarting the shell once if it has gone away."""
        self._since = boot_ticks()
        stream = self._stream if self._stream is not None else self._start()
        try:
            stream.send(self._input(command))
        except OSError:
            self._stop()
            stream = self._start()
            stream.send(self._input(command))
        return stream

    def _stop(self) -> int:
        """Forget the shell's stream; return the shell's exit status (-1 when unknown)."""
        stream, self._stream = self._stream, None
        if stream is None:
            return -1
        stream.close()
        return self._sandbox.exit_code(stream.exec_id, wait=0.5)

    def _wait(self, stream: ExecStream, deadline: float) -> tuple[int, bool]:
        """Collect output until the end frame, the shell's exit, or the deadline (exit code, timed out)."""
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                self._kill()
                return KILLED_EXIT_CODE, True
            frames = stream.read(remaining)
            if frames is None:
                self._framing.finish()
                return self._stop(), False
            status = self._framing.feed(b"".join(data for _, data in frames))
            if status is not None:
                return status, False
            if self._framing.over_limit:
                self._kill()
                return KILLED_EXIT_CODE, False

    def _kill(self) -> None:
        """Kill the shell and everything it started; the next command starts a new shell."""
        stream, self._stream = self._stream, None
        if stream is not None:
            stream.close()  # first: an engine left writing output that nobody reads blocks new execs
            with suppress(SandboxError):
                self._sandbox.kill_tree(self._nonce, since=self._since)

    def release(self) -> None:
        """Drop the connection without killing anything (the container is about to go)."""
        self._stop()

    def close(self) -> None:
        """Kill the shell and everything it started."""
        self._kill()
