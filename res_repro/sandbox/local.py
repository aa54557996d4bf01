"""The local backend: every command runs under bubblewrap on this machine.

The host system is visible read-only (``/usr``, ``/etc`` and the top-level folders that lead into
them), except that no host file or folder which not everyone may read (``/etc/shadow``, the Docker
daemon's key, SSH host keys...) can be read: sandbox root is host root, so without this it could. In the
rarely changing folders (``/usr``...) each is masked by an empty one; ``/etc``, where such files come,
go and are replaced by renames while a shell lives, is shown as a private copy of what everyone may read
there (:class:`PublicCopies`), so it holds no secret to unmask. The sandbox's own folders (``/app``,
``/tests``, ``/solution``, ``/logs``, ``/tmp``) are private host folders bound read-write. Each command
gets fresh namespaces (no network unless the spec allows it, its own process tree) and a minimal
environment, so the harness's
variables never reach it. Memory (address space), file size and core dumps are limited with rlimits;
the CPU share in the spec is not enforced by this backend, only by the Docker backend.

The :class:`~res_repro.sandbox.base.SandboxLimits` are enforced as follows. Processes: every process
of the sandbox joins one ``pids`` cgroup (see :mod:`.cgroups`); where no cgroup is writable,
``RLIMIT_NPROC`` is set inside the sandbox, which binds only when the harness is not root. Workspace:
as root, the private folders live on one size-capped tmpfs, so a full disk is the sandbox's alone;
otherwise only the file-size rlimit applies. ``/dev/shm`` is a folder of that same workspace, and the
rest of ``/dev`` is read-only, so nothing outside the capped workspace is writable. Output: read in
chunks, kept up to the cap, and the command is killed once it has written more than the kill limit.
"""

from __future__ import annotations

import atexit
import ctypes
import functools
import os
import secrets
import select
import shutil
import signal
import stat
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from res_repro.sandbox.base import (
    AGENT_LOGS_DIR,
    APP_DIR,
    DRAIN_GRACE_S,
    MAX_SYMLINKS,
    SANDBOX_PATH,
    SOLUTION_DIR,
    TESTS_DIR,
    TMP_DIR,
    TRANSFER_ROOTS,
    VERIFIER_LOGS_DIR,
    CappedBuffer,
    ExecResult,
    FramedShell,
    Sandbox,
    SandboxError,
    SandboxSpec,
    ShellFraming,
    sandbox_path,
)
from res_repro.sandbox.cgroups import PidsCgroup, pids_cgroup
from res_repro.sandbox.netns import SLIRP_DNS, Network, attach
from res_repro.sandbox.owner import OWNER_VAR, current_owner, owned_tempdir
from res_repro.sandbox.seccomp import filter_program
from res_repro.sandbox.tree_copy import copy_tree
from res_repro.sandbox.watch import CONTENT_EVENTS, FolderWatch
from res_repro.scopes import ProcessWide

BASE_ENV = {"PATH": SANDBOX_PATH, "HOME": APP_DIR, "LANG": "C.UTF-8", "TERM": "dumb"}
SYSTEM_DIRS = ("/usr", "/bin", "/lib", "/lib64", "/etc", "/sbin")
CHANGING_SYSTEM_DIRS = ("/etc",)  # shown as copies of what everyone may read (PublicCopies), the rest masked
SHM_DIR = ".dev_shm"  # in the workspace root: shown as /dev/shm, so shared memory counts against the cap
# Docker's default capability set: root inside keeps what it has in a container, nothing more.
CONTAINER_CAPABILITIES = (
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "SETGID",
    "SETUID",
    "SETPCAP",
    "NET_BIND_SERVICE",
    "SYS_CHROOT",
    "SETFCAP",
    "MKNOD",
    "AUDIT_WRITE",
    "NET_RAW",
)
# Kernel settings are global, not per namespace: bwrap leaves /proc/sys writable to a privileged sandbox
# (root could drop the host's caches), so it is bound read-only, with the SysRq trigger, as Docker does.
KERNEL_SETTINGS = (
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    "--ro-bind-try",
    "/proc/sysrq-trigger",
    "/proc/sysrq-trigger",
)
KILLED_EXIT_CODE = -signal.SIGKILL
CONTROL_DIR = "/.res"  # read-only in the sandbox: the persistent shell's command files
# Runs as ``sh -c JOIN_CGROUP <cgroup.procs> argv...``: joins the cgroup, then becomes argv.
JOIN_CGROUP = 'for f in $0; do echo $$ > "$f" || exit 1; done && exec "$@"'  # $0: the cgroups' files
INODES_PER_MB, MIN_INODES = 64, 4096  # the workspace tmpfs's file count cap (65,536 for 1 GiB)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_POLL_IN = select.POLLIN | select.POLLHUP | select.POLLERR
_MNT_DETACH = 2  # umount2(2) flag: detach now, free once no longer busy

WARM_UP_TIMEOUT_S = 30.0  # how long a warm sandbox's shell may take to answer its first command
# A command's launcher, started in its own bwrap before the command is known (see LocalSandbox.exec): it
# reads the working folder, the number of variables, the variables (NAME=value) and the argv,
# NUL-terminated, from stdin, and becomes the command with stdin on /dev/null, through env(1) so that the
# variables reach it exactly as bwrap's --setenv would put them (any name, none seen by bash) and none
# of the launcher's own bash's (SHLVL, OLDPWD, _) does; PWD is the folder's, as bwrap's --chdir sets it.
LAUNCHER = (
    'IFS= read -r -d "" __cwd && IFS= read -r -d "" __count || exit 127; __pairs=(); '
    'for ((__i = 0; __i < __count; __i++)); do IFS= read -r -d "" __pair || exit 127; __pairs+=("$__pair"); '
    'done; __argv=(); while IFS= read -r -d "" __arg; do __argv+=("$__arg"); done; '
    'exec < /dev/null; cd -- "$__cwd" || exit 1; '
    'exec env -u _ -u OLDPWD -u SHLVL -- "${__pairs[@]}" "${__argv[@]}"'
)
LAUNCHER_PIDS = 3  # the launcher's processes (bwrap, its pid 1, bash), which become the command's bwrap
# How long background sandbox work (reclaiming a closed sandbox, starting a warm one) waits after it is
# asked for: a close is followed within milliseconds by the next episode's start, which it would slow.
BACKGROUND_DELAY_S = 0.02
_LIVE: set[LocalSandbox] = set()  # open sandboxes, closed at exit if the caller did not


class WarmSupply(Protocol):
    """Where :meth:`LocalSandbox.start` looks for a warm sandbox (see :mod:`.warm`)."""

    def take(self, spec: SandboxSpec) -> LocalSandbox | None:
        """A started, never used sandbox with ``spec``'s settings and an empty /app, or None."""

    def close(self) -> None:
        """Close every sandbox still kept."""


WARM_SUPPLY: ProcessWide[WarmSupply] = ProcessWide()
"""The warm pool that :meth:`LocalSandbox.start` takes from while one is open here (see :mod:`.warm`)."""


@atexit.register
def _close_live_sandboxes() -> None:
    """Close every sandbox still open when the interpreter exits normally."""
    for sandbox in list(_LIVE):
        sandbox.close()


T = TypeVar("T")
_ONCE_LOCK = threading.RLock()


def _once(compute: Callable[[], T]) -> Callable[[], T]:
    """``compute`` run once per process, its result kept; a caller that comes while another computes it
    waits for that result instead of computing it a second time (a warm sandbox starting beside an
    episode's own start would otherwise scan /usr twice, each slowing the other)."""
    kept = functools.cache(compute)

    @functools.wraps(compute)
    def once() -> T:
        with _ONCE_LOCK:
            return kept()

    return once


def host_tool(name: str, package: str) -> str:
    """The absolute path of a host program the backend needs, or a SandboxError saying what to install."""
    path = shutil.which(name)
    if path is None:
        raise SandboxError(f"the local sandbox needs {name!r}: apt-get install {package}")
    return path


def capability_args() -> list[str]:
    """bwrap arguments that limit root's capabilities to :data:`CONTAINER_CAPABILITIES`.

    Only a privileged bwrap may grant capabilities; an unprivileged one already runs without them.
    """
    if os.geteuid() != 0:
        return []
    args = ["--cap-drop", "ALL"]
    for name in CONTAINER_CAPABILITIES:
        args += ["--cap-add", f"CAP_{name}"]
    return args


def system_mount_args() -> list[str]:
    """bwrap arguments that show the host system read-only (top-level symlinks stay symlinks)."""
    args: list[str] = []
    for folder in SYSTEM_DIRS:
        if folder in CHANGING_SYSTEM_DIRS:  # shown as public copies (host_secret_masks)
            continue
        if os.path.islink(folder):
            args += ["--symlink", os.readlink(folder), folder]
        elif os.path.isdir(folder):
            args += ["--ro-bind", folder, folder]
    return args


def unreadable_entries(top: str) -> list[str]:
    """Entries below the host folder ``top`` that not everyone may read: regular files without the
    world-read bit and folders without world read and search (whose contents are then not listed).

    Symlinks are skipped: one that points at such a file reaches the mask over it.
    """
    found: list[str] = []
    pending = [top]
    while pending:
        folder = pending.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError:
            continue
        for entry in entries:
            try:
                mode = entry.stat(follow_symlinks=False).st_mode
            except OSError:
                continue
            if stat.S_ISDIR(mode):
                (found if mode & 0o005 != 0o005 else pending).append(entry.path)
            elif stat.S_ISREG(mode) and not mode & 0o004:
                found.append(entry.path)
    return found


@_once
def _stable_unreadable_entries() -> tuple[str, ...]:
    """:func:`unreadable_entries` of the system folders that change only with package installs,
    scanned once per process (``/usr`` takes about a second)."""
    stable = [d for d in SYSTEM_DIRS if d not in CHANGING_SYSTEM_DIRS]
    tops = [d for d in stable if os.path.isdir(d) and not os.path.islink(d)]
    return tuple(path for top in tops for path in unreadable_entries(top))


def copy_public(source: str, dest: Path, watch: FolderWatch) -> None:
    """Copy what everyone may read below the host folder ``source`` into ``dest``: folders with world
    read and search, regular files with world read, links as links; a folder or file not everyone may
    read becomes an empty one (as a mask over it would show it), anything else is left out. Each folder
    walked is added to ``watch`` before it is listed; an entry that vanishes meanwhile is left out."""
    watch.add(source)
    try:
        with os.scandir(source) as listing:
            entries = list(listing)
    except OSError:
        return
    for entry in entries:
        target = dest / entry.name
        try:
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                os.symlink(os.readlink(entry.path), target)
            elif stat.S_ISDIR(mode):
                target.mkdir()
                if mode & 0o005 == 0o005:
                    copy_public(entry.path, target, watch)
                os.chmod(target, stat.S_IMODE(mode))
            elif stat.S_ISREG(mode) and mode & 0o004:
                shutil.copy2(entry.path, target, follow_symlinks=False)
            elif stat.S_ISREG(mode):
                target.touch(mode=stat.S_IMODE(mode))
        except OSError:
            continue


class PublicCopies:
    """Private copies of :data:`CHANGING_SYSTEM_DIRS` holding only what everyone may read, shown in their
    place: a host entry not everyone may read is not in them at all, so no mask can go stale while a shell
    lives (``passwd`` replacing ``/etc/shadow`` by a rename, a key written after the shell started). A
    copy is made anew once inotify says a folder in it changed; a copy a running sandbox shows stays as
    it was until the process ends."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._watch: FolderWatch | None = None
        self._folder: Path | None = None
        self._made: list[Path] = []

    def current(self) -> Path:
        """The folder holding the current copies (one subfolder per system folder)."""
        with self._lock:
            if self._folder is None or self._watch is None or self._watch.changed():
                if self._watch is not None:
                    self._watch.close()
                self._watch = FolderWatch(CONTENT_EVENTS)
                folder = owned_tempdir("system")
                os.chmod(folder, 0o755)
                for top in CHANGING_SYSTEM_DIRS:
                    copy = folder / top.strip("/")
                    copy.mkdir()
                    copy_public(top, copy, self._watch)
                resolver = folder / "etc" / "resolv.conf"  # slirp4netns's DNS (a sandbox with network)
                resolver.unlink(missing_ok=True)
                resolver.write_text(f"nameserver {SLIRP_DNS}\n")
                resolver.chmod(0o644)
                self._folder = folder
                self._made.append(folder)
            return self._folder

    def remove(self) -> None:
        """Remove every copy made (at exit: no sandbox of this process shows them any more)."""
        with self._lock:
            for folder in self._made:
                shutil.rmtree(folder, ignore_errors=True)
            self._made.clear()
            self._folder = None


_PUBLIC = PublicCopies()
atexit.register(_PUBLIC.remove)


def host_secret_masks() -> list[str]:
    """bwrap arguments that keep the host's secrets out: every entry of the rarely changing system
    folders not everyone may read behind an empty, read-only one (``/dev/null`` for a file, a read-only
    tmpfs for a folder), and :data:`CHANGING_SYSTEM_DIRS` replaced by their public copies
    (:class:`PublicCopies`). Built for every command; the arguments change when a copy is made anew.
    """
    args: list[str] = []
    for path in _stable_unreadable_entries():
        if not os.path.lexists(path):
            continue
        if os.path.isdir(path):
            args += ["--tmpfs", path, "--remount-ro", path]
        else:
            args += ["--ro-bind", "/dev/null", path]
    copies = _PUBLIC.current()
    for top in CHANGING_SYSTEM_DIRS:
        args += ["--ro-bind", str(copies / top.strip("/")), top]
    return args


def isolation_args(*, binds: list[str], masks: list[str] | None = None) -> list[str]:
    """bwrap arguments for namespaces, capabilities and mounts: the read-only system (with ``masks``
    over its unreadable entries, see :func:`host_secret_masks`) plus ``binds``.

    ``/dev`` and then the root are made read-only last, so only the bound folders are writable.
    """
    args = ["--unshare-all", "--die-with-parent", "--new-session", *capability_args()]
    system = [*system_mount_args(), *(masks or [])]
    read_only = ["--remount-ro", "/dev", "--remount-ro", "/"]
    return [*args, *system, "--proc", "/proc", *KERNEL_SETTINGS, "--dev", "/dev", *binds, *read_only]


@_once
def _checked_bwrap() -> str:
    """Return bwrap's path once it has shown it can create the namespaces the sandbox uses."""
    bwrap = host_tool("bwrap", "bubblewrap")
    probe = [bwrap, *isolation_args(binds=[]), "--", "true"]
    done = subprocess.run(probe, capture_output=True, text=True, env=BASE_ENV, timeout=30, check=False)
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
        raise SandboxError(
            f"bubblewrap cannot create its namespaces ({reason}); allow user namespaces "
            "(sysctl -w kernel.unprivileged_userns_clone=1, or on Ubuntu "
            "kernel.apparmor_restrict_unprivileged_userns=0) or run as root"
        )
    return bwrap


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library (already loaded into the interpreter), for mount(2) and umount2(2), which the
    standard library lacks."""
    libc = ctypes.CDLL(None)
    text = ctypes.c_char_p
    libc.mount.argtypes = [text, text, text, ctypes.c_ulong, text]
    libc.umount2.argtypes = [text, ctypes.c_int]
    return libc


def mount_workspace(folder: Path, size_mb: int) -> bool:
    """Put a tmpfs of ``size_mb`` on ``folder`` (root only); return whether it is mounted.

    Calls mount(2) directly rather than spawning ``mount``, which costs a few milliseconds per sandbox.
    Without the privilege to mount, the folder stays on the host's disk and False is returned.
    """
    if os.geteuid() != 0:
        return False
    options = f"size={size_mb}m,nr_inodes={max(MIN_INODES, size_mb * INODES_PER_MB)},mode=0755".encode()
    return _libc().mount(b"res-sandbox", os.fsencode(folder), b"tmpfs", 0, options) == 0


def unmount_workspace(folder: Path) -> None:
    """Detach the workspace tmpfs from ``folder`` lazily, as ``umount --lazy`` does (its contents are
    freed with it)."""
    _libc().umount2(os.fsencode(folder), _MNT_DETACH)


def _remove_folders(base: Path, *, capped: bool) -> None:
    """Delete a closed sandbox's private folders, unmounting its workspace tmpfs first when ``capped``."""
    if capped:
        unmount_workspace(base / "fs")
    shutil.rmtree(base, ignore_errors=True)


_RECLAIMER: dict[int, ThreadPoolExecutor] = {}  # by process id: a forked child starts its own


def _finish_close(
    killed: list[subprocess.Popen[bytes]], cgroup: PidsCgroup | None, base: Path | None, *, capped: bool
) -> None:
    """What a sandbox's close leaves to the reclaimer once its processes are SIGKILLed: wait for them
    (their pipes stay with whoever reads them: a command running on another thread reaps its own),
    remove the cgroup (killing any straggler first) and delete the private folders."""
    for proc in killed:
        with suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=DRAIN_GRACE_S)
    if cgroup is not None:
        cgroup.remove()
    if base is not None:
        _remove_folders(base, capped=capped)


def background_due() -> float:
    """The monotonic time at which background work asked for now may begin (:func:`deferred`)."""
    return time.monotonic() + BACKGROUND_DELAY_S


def wait_until(due: float, wake: threading.Event | None = None) -> None:
    """Wait until the monotonic time ``due`` (at once when it has passed), or until ``wake`` is set."""
    (wake or threading.Event()).wait(max(0.0, due - time.monotonic()))


def deferred(step: Callable[..., T]) -> Callable[..., T]:
    """``step``, for a background thread, made to wait until :data:`BACKGROUND_DELAY_S` after now.

    The next episode's sandbox starts within milliseconds of the last one's close; background work begun
    at once competes with that start for the interpreter lock and the cores (on 2 cores a warm start
    took up to 4 times as long), while a few milliseconds later it runs beside the episode's commands.
    Steps deferred together wait out one delay, not one each."""
    due = background_due()

    def run(*args: Any, **kwargs: Any) -> T:
        wait_until(due)
        return step(*args, **kwargs)

    return run


def _reclaim(finish: Callable[[], None]) -> None:
    """Run ``finish`` (:func:`_finish_close`) on a background thread, off the episode's path and
    :func:`deferred`: reaping killed processes, emptying a cgroup and unmounting a mount point wait on
    the kernel for 2-30 ms, and nothing uses the sandbox once its processes are killed. Pending work
    finishes before the interpreter exits; during its exit, and wherever no thread can start, it runs at
    once."""
    try:
        pool = _RECLAIMER.setdefault(
            os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="sandbox-cleanup")
        )
        pool.submit(deferred(finish))
    except RuntimeError:  # the interpreter is shutting down
        finish()


@dataclass
class _Attached:
    """What :meth:`LocalSandbox.spawn` attached to one process: the read end of its gate (bwrap takes
    the byte off it once the sandbox is set up) and its network, if any."""

    gate_read: int
    network: Network | None = None

    def release(self) -> bool:
        """Close the gate and end the network; whether bwrap passed the gate (the command started)."""
        try:
            os.set_blocking(self.gate_read, False)
            started = os.read(self.gate_read, 1) == b""  # the byte is gone: bwrap read it
        except BlockingIOError:
            started = True
        finally:
            os.close(self.gate_read)
            if self.network is not None:
                self.network.stop()
        return started


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process group that ``proc`` leads; bwrap's namespace then takes everything inside."""
    with suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)


def _reap(proc: subprocess.Popen[bytes], grace: float = DRAIN_GRACE_S) -> int:
    """Wait for ``proc`` (killing it after ``grace`` seconds) and close its pipes; return its status."""
    try:
        code = proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        code = proc.wait()
    _close_pipes(proc)
    return code


def _close_pipes(proc: subprocess.Popen[bytes]) -> None:
    """Close the pipes the harness holds to ``proc``."""
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()


def _pump(
    proc: subprocess.Popen[bytes], sinks: dict[int, CappedBuffer], deadline: float, kill_after: int
) -> tuple[bool, bool]:
    """Read the pipes in ``sinks`` until they close, killing the tree at ``deadline`` or once more than
    ``kill_after`` bytes have arrived. Return (timed out, killed for output)."""
    poller = select.poll()
    for fd in sinks:
        poller.register(fd, _POLL_IN)
    open_fds, timed_out, flooded = set(sinks), False, False
    while open_fds:
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            if timed_out or flooded:
                break
            _kill_group(proc)
            timed_out, deadline = True, time.perf_counter() + DRAIN_GRACE_S
            continue
        for fd, _ in poller.poll(remaining * 1000):
            chunk = os.read(fd, 65536)
            if chunk:
                sinks[fd].add(chunk)
            else:
                poller.unregister(fd)
                open_fds.discard(fd)
        if not (flooded or timed_out) and sum(sink.total for sink in sinks.values()) > kill_after:
            _kill_group(proc)
            flooded, deadline = True, time.perf_counter() + DRAIN_GRACE_S
    return timed_out, flooded


def _open_dirs(top: int, parts: list[str], *, create: bool) -> int:
    """Open ``parts`` below the folder ``top`` one level at a time, never following a symlink."""
    fd = os.dup(top)
    try:
        for part in parts:
            if create:
                with suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fd)
            child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def _replace_entry(dir_fd: int, name: str, source: bytes | Path, mode: int) -> None:
    """Create ``name`` in ``dir_fd`` from bytes or a host file (a host symlink is copied as a symlink).

    The new entry is written under a temporary name and renamed over the old one, so an existing file
    (or a symlink planted in its place) is replaced rather than written through.
    """
    temp = f".res-partial-{secrets.token_hex(8)}"
    try:
        if isinstance(source, Path) and source.is_symlink():
            os.symlink(os.readlink(source), temp, dir_fd=dir_fd)
        else:
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, mode, dir_fd=dir_fd)
            with open(fd, "wb") as out:
                if isinstance(source, Path):
                    with source.open("rb") as src:
                        shutil.copyfileobj(src, out)
                else:
                    out.write(source)
                os.fchmod(out.fileno(), mode)
        os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException:
        with suppress(FileNotFoundError):
            os.unlink(temp, dir_fd=dir_fd)
        raise


class LocalSandbox(Sandbox):
    """A sandbox made of bubblewrap namespaces over private host folders; see the module docstring."""

    def __init__(self, spec: SandboxSpec) -> None:
        self.spec = spec
        self._base: Path | None = None
        self._root: Path | None = None
        self._cgroup: PidsCgroup | None = None
        self.workspace_capped = False  # whether the private folders sit on a size-capped tmpfs
        self._shell: LocalShell | None = None
        self._launcher: subprocess.Popen[bytes] | None = None  # a started bwrap waiting for its command
        self._launcher_masks: list[str] = []  # the host secret masks it was started with
        self._running: set[subprocess.Popen[bytes]] = set()
        self._attached: dict[subprocess.Popen[bytes], _Attached] = {}
        self._lock = threading.Lock()

    # -- lifecycle -------------------------------------------------------------------------------------

    def start(self) -> None:
        """Check bubblewrap, create the private folders (on a capped tmpfs where possible), the
        process cgroup, and copy the workspace into /app.

        Within :func:`~res_repro.sandbox.warm.warm_sandboxes` a warm sandbox of the same settings, never
        used, is adopted instead when one is ready: its folders, cgroup and answering shell become this
        sandbox's, and only the workspace copy is left to do.
        """
        if self._root is not None:
            return
        supply = WARM_SUPPLY.current
        warm = supply.take(self.spec) if supply is not None else None
        if warm is None:
            self._start_blank()
        else:
            self.adopt(warm)
        if self.spec.workspace is None:
            return
        with self.closed_on_failure("cannot copy the workspace into the sandbox"):
            copy_tree(self.spec.workspace, self.root / "app")

    def _start_blank(self) -> None:
        """Create the private folders, the workspace tmpfs and the cgroup, with an empty /app."""
        _checked_bwrap()
        host_tool("prlimit", "util-linux")
        _stable_unreadable_entries()  # scanned here, once per process, not inside a command's timeout
        self._base = owned_tempdir("sandbox")
        _LIVE.add(self)
        with self.closed_on_failure("cannot prepare the sandbox's folders"):
            root, control = self._base / "fs", self._base / "ctl"
            root.mkdir()
            control.mkdir(mode=0o755)
            self.workspace_capped = mount_workspace(root, self.spec.limits.workspace_mb)
            for folder in (APP_DIR, TESTS_DIR, SOLUTION_DIR, VERIFIER_LOGS_DIR, AGENT_LOGS_DIR, TMP_DIR):
                (root / folder.lstrip("/")).mkdir(parents=True, exist_ok=True)
            (root / "tmp").chmod(0o1777)
            (root / SHM_DIR).mkdir(mode=0o1777)
            (root / SHM_DIR).chmod(0o1777)
            memory = (self.spec.memory_mb + self.spec.limits.workspace_mb) << 20  # the workspace is shmem too
            self._cgroup = pids_cgroup(self.spec.limits.pids, memory_bytes=memory)
        self._root = root

    def warm_up(self) -> None:
        """Start this sandbox with an empty /app (never from the warm pool) and its shell, which must
        answer one ``true``: a warm sandbox, ready for :meth:`adopt`. Closed again when that fails."""
        if self.spec.workspace is not None:
            raise SandboxError("a warm sandbox starts with an empty /app: its spec has no workspace")
        self._start_blank()
        try:
            answer = self.shell().run("true", WARM_UP_TIMEOUT_S)
        except BaseException:
            self.close()
            raise
        if not answer.ok:
            self.close()
            raise SandboxError(f"a warm sandbox's shell did not answer: {answer.stdout.strip()!r}")
        try:
            self._launcher_masks = host_secret_masks()  # before the spawn's own look: a change discards it
            if self._cgroup is not None:  # the agent keeps its whole process limit while the launcher waits
                self._cgroup.set_limit(self.spec.limits.pids + LAUNCHER_PIDS)
            self._launcher = self.spawn(
                ["bash", "-c", LAUNCHER], cwd="/", env=None, merge_stderr=False, stdin=subprocess.PIPE
            )
        except BaseException:
            self.close()
            raise

    def adopt(self, warm: LocalSandbox) -> None:
        """Take over the started, never used sandbox ``warm`` (same settings but the workspace): its
        folders, cgroup, shell and processes become this sandbox's, and ``warm`` is left closed."""
        with warm._lock:
            running, warm._running = warm._running, set()
            attached, warm._attached = warm._attached, {}
        with self._lock:
            self._running |= running
            self._attached.update(attached)
        self._base, self._root, self._cgroup = warm._base, warm._root, warm._cgroup
        self.workspace_capped, self._shell = warm.workspace_capped, warm._shell
        self._launcher, warm._launcher = warm._launcher, None
        self._launcher_masks = warm._launcher_masks
        warm._base, warm._root, warm._cgroup, warm._shell = None, None, None, None
        if self._shell is not None:
            self._shell.serve(self)
        _LIVE.add(self)
        _LIVE.discard(warm)

    def close(self) -> None:
        """Kill the shell and every running command at once (bwrap's namespace takes everything inside
        with them); reaping them, removing the cgroup and deleting the private folders finish on a
        background thread (:func:`_reclaim`). Idempotent."""
        if self._shell is not None:
            self._shell.abandon()  # the shell's process is among those waited for below
            self._shell = None
        with self._lock:
            launcher, self._launcher = self._launcher, None  # among the running processes killed below
            killed, self._running = list(self._running), set()
            attached, self._attached = list(self._attached.values()), {}
        for proc in killed:
            _kill_group(proc)
        for each in attached:  # the gates closed, the networks ended: nothing inside needs them
            each.release()
        if launcher is not None:  # nobody else reads its pipes
            _close_pipes(launcher)
        cgroup, self._cgroup = self._cgroup, None
        base, self._base, self._root = self._base, None, None
        if killed or cgroup is not None or base is not None:
            _reclaim(functools.partial(_finish_close, killed, cgroup, base, capped=self.workspace_capped))
        _LIVE.discard(self)

    def _require_started(self) -> Path:
        """Return the private host folder, or raise when the sandbox is not started."""
        if self._root is None:
            raise SandboxError("the sandbox is not started (call start() or use it as a context manager)")
        return self._root

    @property
    def root(self) -> Path:
        """The host folder holding the sandbox's private folders (one subfolder per mount)."""
        return self._require_started()

    @property
    def control_dir(self) -> Path:
        """The host folder shown read-only at :data:`CONTROL_DIR` (outside the workspace cap)."""
        self._require_started()
        assert self._base is not None
        return self._base / "ctl"

    @property
    def launcher_pid(self) -> int | None:
        """The process id of the launcher waiting for this sandbox's next command (a warm sandbox
        prepares one; :meth:`exec` uses it once), None when none is waiting."""
        return None if self._launcher is None else self._launcher.pid

    @property
    def cgroup(self) -> PidsCgroup | None:
        """The cgroup holding every process of the sandbox (None where no cgroup is writable)."""
        return self._cgroup

    # -- processes -------------------------------------------------------------------------------------

    def command_line(
        self,
        argv: list[str],
        *,
        cwd: str,
        env: dict[str, str] | None,
        gate_fd: int | None = None,
        info_fd: int | None = None,
        seccomp_fd: int | None = None,
    ) -> list[str]:
        """The host command that runs ``argv`` inside the sandbox, limits and namespaces included. With
        ``gate_fd`` (a pipe's read end), bwrap waits once the sandbox is set up, just before ``argv``
        starts, until it can read a byte there (so a failure of the set-up can be told from the
        command's, and the network can be brought up first); with ``info_fd``, bwrap reports there the
        process whose namespaces the sandbox has; with ``seccomp_fd``, bwrap installs the seccomp
        program it reads there (:mod:`.seccomp`) just before the command starts."""
        prlimit = host_tool("prlimit", "util-linux")
        limits = [
            prlimit,
            f"--as={self.spec.memory_mb << 20}",
            f"--fsize={self.spec.max_file_mb << 20}",
            "--core=0",
            "--",
        ]
        binds: list[str] = []
        for folder in TRANSFER_ROOTS:
            binds += ["--bind", str(self.root / folder.lstrip("/")), folder]
        binds += ["--bind", str(self.root / SHM_DIR), "/dev/shm"]
        binds += ["--ro-bind", str(self.control_dir), CONTROL_DIR]
        for link, target in self.spec.aliases:
            binds += ["--symlink", sandbox_path(target), link]
        masks = host_secret_masks()
        isolation = isolation_args(binds=binds, masks=masks)
        block = ["--block-fd", str(gate_fd)] if gate_fd is not None else []
        info = ["--info-fd", str(info_fd)] if info_fd is not None else []
        seccomp = ["--seccomp", str(seccomp_fd)] if seccomp_fd is not None else []
        bwrap = [_checked_bwrap(), *block, *info, *seccomp, *isolation, "--chdir", cwd, "--clearenv"]
        for name, value in {**BASE_ENV, **self.spec.env, **(env or {})}.items():
            bwrap += ["--setenv", name, value]
        if self._cgroup is not None:
            join = ["sh", "-c", JOIN_CGROUP, self._cgroup.procs_file]
            return [*join, *limits, *bwrap, "--", *argv]
        # No cgroup: RLIMIT_NPROC, set inside the new user namespace so that it counts this sandbox only.
        nproc = [prlimit, f"--nproc={self.spec.limits.pids}", "--"]
        return [*limits, *bwrap, "--", *nproc, *argv]

    def spawn(
        self, argv: list[str], *, cwd: str, env: dict[str, str] | None, merge_stderr: bool, stdin: int
    ) -> subprocess.Popen[bytes]:
        """Start ``argv`` in the sandbox as the leader of a new process group, tracked until reaped. bwrap
        holds it at the gate (see :meth:`command_line`) until the sandbox's network is up, where the spec
        allows one (:mod:`.netns`), then lets it start."""
        program = filter_program()
        slirp = host_tool("slirp4netns", "slirp4netns") if self.spec.allow_network else ""
        gate_read, gate_write = os.pipe()
        info_read, info_write = os.pipe() if self.spec.allow_network else (None, None)
        seccomp_read, seccomp_write = os.pipe()
        os.write(seccomp_write, program)  # far below a pipe's buffer
        os.close(seccomp_write)
        passed = tuple(fd for fd in (gate_read, info_write, seccomp_read) if fd is not None)
        try:
            proc = subprocess.Popen(
                self.command_line(
                    argv, cwd=cwd, env=env, gate_fd=gate_read, info_fd=info_write, seccomp_fd=seccomp_read
                ),
                stdin=stdin,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT if merge_stderr else subprocess.PIPE,
                env={**BASE_ENV, OWNER_VAR: current_owner().label()},
                start_new_session=True,
                pass_fds=passed,
            )
        except BaseException:
            for fd in (gate_read, gate_write, info_read, info_write):
                if fd is not None:
                    os.close(fd)
            raise
        finally:
            os.close(seccomp_read)
        if info_write is not None:
            os.close(info_write)
        attached = _Attached(gate_read)
        with self._lock:
            self._running.add(proc)
            self._attached[proc] = attached
        try:
            if info_read is not None:
                attached.network = attach(slirp, info_read)
        finally:
            os.write(gate_write, b"1")  # on a failed attach too: the command then meets no network
            os.close(gate_write)
        return proc

    def reap(self, proc: subprocess.Popen[bytes]) -> int:
        """Wait for a spawned process, close its pipes and stop tracking it; return its status."""
        return self._reap_command(proc)[0]

    def _reap_command(self, proc: subprocess.Popen[bytes]) -> tuple[int, bool]:
        """:meth:`reap`, and whether the command started (bwrap passed the gate: its set-up worked)."""
        try:
            code = _reap(proc)
        finally:
            with self._lock:
                self._running.discard(proc)
                attached = self._attached.pop(proc, None)
        return code, attached.release() if attached is not None else True

    def exec(
        self,
        command: str | list[str],
        timeout: float,
        *,
        cwd: str = APP_DIR,
        env: dict[str, str] | None = None,
        output_cap: int | None = None,
    ) -> ExecResult:
        """Run one command in a fresh bwrap (a string goes to ``bash -c``); see :meth:`Sandbox.exec`. The
        first command of a warm sandbox runs in the bwrap its launcher started beforehand."""
        argv = ["bash", "-c", command] if isinstance(command, str) else list(command)
        started = time.perf_counter()
        proc = self._launched(argv, cwd=cwd, env=env) or self.spawn(
            argv, cwd=cwd, env=env, merge_stderr=False, stdin=subprocess.DEVNULL
        )
        assert proc.stdout is not None and proc.stderr is not None
        cap = self.spec.output_cap(output_cap)
        out, err = CappedBuffer(cap), CappedBuffer(cap)
        sinks = {proc.stdout.fileno(): out, proc.stderr.fileno(): err}
        try:
            timed_out, flooded = _pump(proc, sinks, started + timeout, self.spec.limits.output_kill_bytes)
        finally:
            code, started_command = self._reap_command(proc)
        if not started_command and not timed_out:  # bwrap failed before the command: not its result
            raise SandboxError(f"the sandbox could not start the command: {err.text().strip()[:300]}")
        return ExecResult(
            exit_code=KILLED_EXIT_CODE if timed_out or flooded else code,
            stdout=out.text(),
            stderr=err.text(),
            timed_out=timed_out,
            truncated=out.truncated or err.truncated,
            seconds=time.perf_counter() - started,
            output_bytes=out.total + err.total,
            output_killed=flooded,
        )

    def end_agent_processes(self) -> None:
        """End the shell and everything it started, and wait until they are gone: they live in the
        shell's own pid and network namespaces, which no command run by :meth:`exec` shares."""
        if self._shell is not None:
            self._shell.close()

    def _launched(
        self, argv: list[str], *, cwd: str, env: dict[str, str] | None
    ) -> subprocess.Popen[bytes] | None:
        """``argv`` started by the launcher a warm sandbox prepared (its bwrap, namespaces and cgroup
        already made off the episode's path), or None when there is none, it died, the host's secret
        masks changed since it started, or ``argv`` is one it cannot pass on as a fresh bwrap would (empty,
        or a program name env(1) would read as a variable); the launcher is used at most once."""
        with self._lock:
            launcher, self._launcher = self._launcher, None
        if launcher is None:
            return None
        if self._cgroup is not None:  # its processes now count as a command's bwrap, or are gone
            self._cgroup.set_limit(self.spec.limits.pids)
        fields = [cwd, str(len(env or {})), *(f"{k}={v}" for k, v in (env or {}).items()), *argv]
        if any("\0" in field for field in fields):
            self._discard(launcher)
            raise ValueError("embedded null byte")  # as a fresh bwrap's Popen says
        # one killed from outside (it is out of the agent's sight) is not used, nor one that would show a
        # host secret written since it started (a fresh bwrap masks it)
        usable = bool(argv) and "=" not in argv[0] and launcher.poll() is None
        if not usable or self._launcher_masks != host_secret_masks():
            self._discard(launcher)
            return None
        assert launcher.stdin is not None
        try:
            launcher.stdin.write(b"".join(os.fsencode(field) + b"\0" for field in fields))
            launcher.stdin.close()
        except (BrokenPipeError, ValueError):
            self._discard(launcher)
            return None
        return launcher

    def _discard(self, launcher: subprocess.Popen[bytes]) -> None:
        """Kill a launcher that will not be used and reap it."""
        _kill_group(launcher)
        self.reap(launcher)

    def shell(self) -> LocalShell:
        """The persistent bash of this sandbox (started on first use)."""
        if self._shell is None:
            self._require_started()
            self._shell = LocalShell(self)
        return self._shell

    # -- files -----------------------------------------------------------------------------------------

    def resolve(self, path: str) -> list[str]:
        """Split ``path`` into components after following symlinks as the sandbox sees them.

        The first component is a transfer root (``app``, ``tmp``...). A symlink whose target lies outside
        the transfer roots, for instance into the host's read-only ``/etc``, is refused.
        """
        pending = deque(sandbox_path(path).strip("/").split("/"))
        done: list[str] = []
        links = 0
        while pending:
            part = pending.popleft()
            if part in ("", "."):
                continue
            if part == "..":
                if done:
                    done.pop()
                continue
            if not done and "/" + part not in TRANSFER_ROOTS:
                raise SandboxError(f"sandbox path {path!r} leads outside the transfer folders via /{part}")
            host = self.root.joinpath(*done, part)
            if not host.is_symlink():
                done.append(part)
                continue
            links += 1
            if links > MAX_SYMLINKS:
                raise SandboxError(f"too many levels of symbolic links in {path!r}")
            target = os.readlink(host)
            if target.startswith("/"):
                done = []
            pending.extendleft(reversed(target.split("/")))
        if not done:
            raise SandboxError(f"sandbox path {path!r} resolves to '/'")
        return done

    def _open_dir(self, parts: list[str], *, create: bool) -> int:
        """Open the folder ``parts`` (a transfer root first) without following symlinks."""
        top = os.open(self.root / parts[0], _DIR_FLAGS)
        try:
            return _open_dirs(top, parts[1:], create=create)
        finally:
            os.close(top)

    def write_file(self, path: str, data: bytes | str, mode: int = 0o644) -> None:
        """Create or replace the file at ``path``; parent folders are created."""
        parts = self.resolve(path)
        if len(parts) < 2:
            raise IsADirectoryError(path)
        payload = data.encode() if isinstance(data, str) else data
        dir_fd = self._open_dir(parts[:-1], create=True)
        try:
            _replace_entry(dir_fd, parts[-1], payload, mode)
        finally:
            os.close(dir_fd)

    def read_file(self, path: str, limit: int | None = None) -> bytes:
        """Return the bytes of the regular file at ``path`` (its first ``limit`` when given)."""
        parts = self.resolve(path)
        if len(parts) < 2:
            raise IsADirectoryError(path)
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            dir_fd = self._open_dir(parts[:-1], create=False)
            try:
                fd = os.open(parts[-1], flags, dir_fd=dir_fd)
            finally:
                os.close(dir_fd)
        except FileNotFoundError:
            raise FileNotFoundError(f"no such file in the sandbox: {path}") from None
        with open(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise SandboxError(f"{path!r} is not a regular file")
            return handle.read() if limit is None else handle.read(limit)

    def put_dir(self, host_dir: Path, path: str) -> None:
        """Copy the contents of ``host_dir`` into ``path``; symlinks are copied as symlinks."""
        if not Path(host_dir).is_dir():
            raise FileNotFoundError(f"no such host folder: {host_dir}")
        target = self._open_dir(self.resolve(path), create=True)
        try:
            for folder, dirs, files in os.walk(host_dir):
                rel = Path(folder).relative_to(host_dir).parts
                dir_fd = _open_dirs(target, list(rel), create=True)
                try:
                    for name in [*files, *(d for d in dirs if os.path.islink(os.path.join(folder, d)))]:
                        source = Path(folder, name)
                        _replace_entry(dir_fd, name, source, stat.S_IMODE(source.lstat().st_mode))
                finally:
                    os.close(dir_fd)
        finally:
            os.close(target)


class LocalShell(FramedShell):
    """A ``bash --noprofile --norc`` kept alive in one bwrap process, driven over pipes.

    Each command is written to a file in the sandbox's /tmp and sourced (see :class:`ShellFraming`).
    """

    def __init__(self, sandbox: LocalSandbox) -> None:
        self._sandbox = sandbox
        self._limits = sandbox.spec.limits
        self._proc: subprocess.Popen[bytes] | None = None
        self._poller = select.poll()
        self._framing = ShellFraming("")
        self._script = ""

    def serve(self, sandbox: LocalSandbox) -> None:
        """Belong to ``sandbox`` from now on (one that adopted this shell's warm sandbox)."""
        self._sandbox = sandbox

    @property
    def pid(self) -> int | None:
        """The shell process's id, None while it is not running."""
        return None if self._proc is None else self._proc.pid

    def _start(self) -> subprocess.Popen[bytes]:
        """Start the bash process and a fresh framing nonce."""
        nonce = secrets.token_hex(12)
        self._framing = ShellFraming(f"__res_done_{nonce}")
        self._script = f"{CONTROL_DIR}/shell_{nonce}"
        proc = self._sandbox.spawn(
            ["bash", "--noprofile", "--norc"], cwd=APP_DIR, env=None, merge_stderr=True, stdin=subprocess.PIPE
        )
        assert proc.stdout is not None
        self._poller = select.poll()
        self._poller.register(proc.stdout.fileno(), _POLL_IN)
        self._proc = proc
        return proc

    def _write_script(self, command: str) -> None:
        """Put the command text where the shell will source it: the read-only control folder, outside
        the workspace cap, so that a sandbox whose disk is full still runs commands.

        The file is rewritten in place rather than replaced: only the harness writes in that folder
        (the sandbox sees it read-only), and replacing a file frees the old one's blocks, which on a
        disk mounted with ``discard`` waits for the device on every command."""
        control_fd = os.open(self._sandbox.control_dir, _DIR_FLAGS)
        try:
            flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC
            fd = os.open(self._script.rsplit("/", 1)[1], flags, 0o644, dir_fd=control_fd)
        finally:
            os.close(control_fd)
        with open(fd, "wb") as script:
            script.write(command.encode())
            script.truncate()  # at the end of what was just written: no tail of a longer command

    def _send(self, command: str) -> subprocess.Popen[bytes]:
        """Hand ``command`` to the shell, restarting the shell once if it has gone away."""
        proc = self._proc if self._proc is not None else self._start()
        try:
            self._submit(proc, command)
        except BrokenPipeError:
            self._stop(kill=True)
            proc = self._start()
            self._submit(proc, command)
        return proc

    def _submit(self, proc: subprocess.Popen[bytes], command: str) -> None:
        """Write the command file and the line that sources it."""
        assert proc.stdin is not None
        self._write_script(command)
        os.write(proc.stdin.fileno(), self._framing.command_line(self._script))

    def _stop(self, *, kill: bool) -> int:
        """End the shell process (killing its whole tree when ``kill``) and return its exit status."""
        proc, self._proc = self._proc, None
        if proc is None:
            return 0
        if kill:
            _kill_group(proc)
        return self._sandbox.reap(proc)

    def _wait(self, proc: subprocess.Popen[bytes], deadline: float) -> tuple[int, bool]:
        """Collect output until the end frame, the shell's exit, or the deadline (exit code, timed out)."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                self._stop(kill=True)
                return KILLED_EXIT_CODE, True
            if not self._poller.poll(remaining * 1000):
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                self._framing.finish()
                return self._stop(kill=False), False
            status = self._framing.feed(chunk)
            if status is not None:
                return status, False
            if self._framing.over_limit:
                self._stop(kill=True)
                return KILLED_EXIT_CODE, False

    def close(self) -> None:
        """Kill the shell and everything it started."""
        self._stop(kill=True)

    def abandon(self) -> None:
        """Kill the shell's process tree and close its pipes without waiting for it to exit (its
        sandbox's close has that done off the episode's path)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            _kill_group(proc)
            _close_pipes(proc)
