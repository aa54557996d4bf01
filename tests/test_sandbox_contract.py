"""The sandbox contract, checked against every backend with the same commands (POSIX sh + busybox).

Docker cases run on a busybox-only image built from the host's static busybox; without a Docker engine
they are skipped, except under CI=true where they fail.
"""

from __future__ import annotations

import dataclasses
import os
import random
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fault_helpers import DEADLINE_S, host_pids_with, sleep_marker, wait_until_gone, wait_until_present

from res_repro.sandbox import SANDBOX_BACKENDS, Sandbox, SandboxError, SandboxSpec, make_sandbox

MakeSandbox = Callable[..., Sandbox]
T = 10.0  # generous timeout for commands that should finish at once


@pytest.fixture(params=["local", pytest.param("docker", marks=pytest.mark.docker)])
def backend(request: pytest.FixtureRequest) -> str:
    """The backend under test."""
    return request.param


@pytest.fixture
def make(backend: str, request: pytest.FixtureRequest) -> Iterator[MakeSandbox]:
    """A factory of started sandboxes of the backend under test; all are closed at teardown."""
    image = request.getfixturevalue("docker_image") if backend == "docker" else None
    created: list[Sandbox] = []

    def factory(**spec: object) -> Sandbox:
        sandbox = make_sandbox(backend, SandboxSpec(docker_image=image, **spec))  # type: ignore[arg-type]
        created.append(sandbox)
        sandbox.start()
        return sandbox

    yield factory
    for sandbox in created:
        sandbox.close()


@pytest.fixture
def sandbox(make: MakeSandbox) -> Sandbox:
    """One started sandbox."""
    return make()


def count_inside(sandbox: Sandbox, command: str) -> int:
    """How many processes in the sandbox run ``command`` (as seen from a new command there)."""
    pattern = "[" + command[0] + "]" + command[1:]  # so that grep does not count itself
    script = f"for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; done | grep -c '^{pattern} '"
    return int(sandbox.exec(script, T).stdout.strip() or 0)


def host_addresses() -> list[str]:
    """Loopback and the address of the host's default route (when there is one)."""
    addresses = ["127.0.0.1"]
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: nothing is sent
            addresses.append(probe.getsockname()[0])
        except OSError:
            pass
    return addresses


# -- commands ----------------------------------------------------------------------------------------


def test_echo_and_exit_codes(sandbox: Sandbox) -> None:
    result = sandbox.exec("echo hello", T)
    assert (result.exit_code, result.stdout, result.ok) == (0, "hello\n", True)
    assert sandbox.exec("exit 3", T).exit_code == 3
    assert sandbox.exec(["echo", "a  b"], T).stdout == "a  b\n"
    assert sandbox.exec("pwd", T).stdout == "/app\n"
    assert sandbox.exec("pwd", T, cwd="/tmp").stdout == "/tmp\n"


def test_stdout_and_stderr_are_separate(sandbox: Sandbox) -> None:
    result = sandbox.exec("echo out; echo err >&2; exit 1", T)
    assert (result.stdout, result.stderr, result.exit_code) == ("out\n", "err\n", 1)


def test_output_beyond_the_cap_is_dropped(sandbox: Sandbox) -> None:
    result = sandbox.exec("yes 0123456789 | head -n 20000; echo done >&2", T, output_cap=1000)
    assert result.exit_code == 0 and result.truncated
    assert result.stdout == "0123456789\n" * 90 + "0123456789"
    assert result.stderr == "done\n"


def test_environment_comes_from_spec_and_call_only(
    make: MakeSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    canary = f"canary-{random.getrandbits(64):x}"
    monkeypatch.setenv("RES_SECRET_CANARY", canary)
    sandbox = make(env={"RES_SPEC_VAR": "from-spec"})
    result = sandbox.exec(
        "env; cat /proc/[0-9]*/environ | tr '\\0' '\\n'", T, env={"RES_CALL_VAR": "from-call"}
    )
    shell_env = sandbox.shell().run("env", T).stdout
    for output in (result.stdout, shell_env):
        assert canary not in output and "RES_SECRET_CANARY" not in output
        assert "RES_SPEC_VAR=from-spec" in output
    assert "RES_CALL_VAR=from-call" in result.stdout


# -- isolation ---------------------------------------------------------------------------------------


def test_cannot_write_outside_the_sandbox(sandbox: Sandbox, backend: str) -> None:
    name = f"res_escape_{random.getrandbits(64):x}"
    targets = [f"/usr/{name}", f"/etc/{name}", f"/work/{name}", f"/root/{name}", f"/{name}"]
    attempts = "; ".join(
        f"mkdir -p {os.path.dirname(t)} 2>/dev/null; echo x > {t} && echo WROTE {t}" for t in targets
    )
    result = sandbox.exec(attempts + f"; echo x > /app/../{name} && echo WROTE /app/../{name}", T)
    try:
        for target in targets:
            assert not Path(target).exists(), f"{target} appeared on the host"
        if backend == "local":  # the host system is mounted read-only; Docker writes land in the container
            assert "WROTE" not in result.stdout
    finally:
        for target in targets:
            Path(target).unlink(missing_ok=True)


def test_no_network(sandbox: Sandbox, backend: str) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("0.0.0.0", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        urls = [f"http://{address}:{port}/" for address in host_addresses()] + ["http://1.1.1.1/"]
        script = "; ".join(f"wget -q -T 2 -O /dev/null {url} && echo CONNECTED {url}" for url in urls)
        result = sandbox.exec(script, 30)
        assert "CONNECTED" not in result.stdout
        if backend == "local":
            for address in host_addresses():
                code = f"import socket; socket.create_connection(('{address}', {port}), timeout=2)"
                assert sandbox.exec(["python3", "-c", code], T).exit_code != 0
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()


def test_timeout_kills_the_command_and_its_children(sandbox: Sandbox) -> None:
    command, cmdline = sleep_marker()
    result = sandbox.exec(f"sh -c '{command}' & {command} & {command}", 1.0)
    assert result.timed_out and not result.ok
    assert 0.9 < result.seconds < 1.0 + DEADLINE_S  # killed at the timeout, not left to sleep
    assert wait_until_gone(cmdline) == []
    assert count_inside(sandbox, command) == 0
    assert sandbox.exec("echo alive", T).stdout == "alive\n"


@pytest.mark.slow
def test_a_timeout_kills_a_daemon_that_cleared_its_environment(sandbox: Sandbox) -> None:
    """A daemon detached with ``env -i`` (no marker variable left) and double-forked dies at the timeout."""
    command, cmdline = sleep_marker()
    detached = f"(env -i sh -c '{command} &' &) ; sleep 600"
    for run in (lambda: sandbox.exec(detached, 1.0), lambda: sandbox.shell().run(detached, 1.0)):
        assert run().timed_out
        assert wait_until_gone(cmdline) == []
        assert count_inside(sandbox, command) == 0


def test_close_kills_everything(make: MakeSandbox) -> None:
    sandbox = make()
    command, cmdline = sleep_marker()
    assert sandbox.shell().run(f"{command} >/dev/null 2>&1 &", T).ok
    running = threading.Thread(target=sandbox.exec, args=(command, 600.0))
    running.start()
    assert wait_until_present(cmdline, count=2)
    sandbox.close()
    running.join(timeout=DEADLINE_S)
    assert not running.is_alive()
    assert wait_until_gone(cmdline) == []
    sandbox.close()  # idempotent


# -- files -------------------------------------------------------------------------------------------


def test_files_round_trip(sandbox: Sandbox, tmp_path: Path) -> None:
    sandbox.write_file("/app/sub/dir/a.txt", "hello\n")
    sandbox.write_file("/tests/run.sh", "echo ran\n", mode=0o755)
    sandbox.write_file("/tmp/blob", bytes(range(256)))
    assert sandbox.read_file("/app/sub/dir/a.txt") == b"hello\n"
    assert sandbox.read_file("/tmp/blob") == bytes(range(256))
    assert sandbox.exec("cat sub/dir/a.txt && /tests/run.sh", T).stdout == "hello\nran\n"
    sandbox.write_file("/app/sub/dir/a.txt", "replaced")
    assert sandbox.read_file("/app/sub/dir/a.txt") == b"replaced"
    assert sandbox.exec("mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt", T).ok
    assert sandbox.read_file("/logs/verifier/reward.txt") == b"1\n"
    with pytest.raises(FileNotFoundError):
        sandbox.read_file("/app/missing.txt")

    (tmp_path / "nested").mkdir()
    (tmp_path / "top.txt").write_text("top")
    (tmp_path / "nested" / "solve.sh").write_text("echo solved\n")
    (tmp_path / "nested" / "solve.sh").chmod(0o755)
    sandbox.put_dir(tmp_path, "/solution/copy")
    assert sandbox.read_file("/solution/copy/top.txt") == b"top"
    assert sandbox.exec("/solution/copy/nested/solve.sh", T).stdout == "solved\n"


def test_workspace_is_copied_to_app(make: MakeSandbox, tmp_path: Path) -> None:
    (tmp_path / "data.txt").write_text("payload")
    sandbox = make(workspace=tmp_path)
    assert sandbox.exec("cat /app/data.txt", T).stdout == "payload"
    assert sandbox.exec("test -d /tests -a -d /solution -a -d /logs/verifier -a -d /logs/agent", T).ok


def test_paths_outside_the_transfer_folders_are_refused(sandbox: Sandbox) -> None:
    for path in ("/etc/passwd", "/app/../etc/passwd", "relative.txt", "/usr/lib/x", "/"):
        with pytest.raises(SandboxError):
            sandbox.read_file(path)
        with pytest.raises(SandboxError):
            sandbox.write_file(path, "x")
    with pytest.raises(SandboxError):
        sandbox.put_dir(Path(__file__).parent, "/etc/tests-copy")
    assert sandbox.exec("ln -s /etc/passwd /app/passwd && ln -s ../tmp /app/t", T).ok
    with pytest.raises(SandboxError):
        sandbox.read_file("/app/passwd")
    sandbox.write_file("/app/t/through-link", "ok")
    assert sandbox.read_file("/tmp/through-link") == b"ok"


def test_symlinks_cannot_reach_host_files(sandbox: Sandbox, backend: str) -> None:
    name = f"res_escape_{random.getrandbits(64):x}"
    assert sandbox.exec(f"ln -s /etc/{name} /app/out && ln -s /etc /app/etc", T).ok
    try:
        for path in ("/app/out", "/app/etc/passwd"):
            try:
                data = sandbox.read_file(path)
            except (SandboxError, FileNotFoundError):
                continue
            assert backend == "docker" and data != Path("/etc/passwd").read_bytes()
        if backend == "local":  # Docker replaces the link itself, inside the container
            with pytest.raises(SandboxError):
                sandbox.write_file("/app/out", "x")
        else:
            sandbox.write_file("/app/out", "x")
        assert not Path(f"/etc/{name}").exists()
    finally:
        Path(f"/etc/{name}").unlink(missing_ok=True)


# -- persistent shell --------------------------------------------------------------------------------


def test_shell_keeps_cwd_and_exports(sandbox: Sandbox) -> None:
    shell = sandbox.shell()
    assert shell.run("cd /tmp && export RES_KEPT=yes && KEPT_TOO=1", T).ok
    assert shell.run('pwd; echo "$RES_KEPT $KEPT_TOO"', T).stdout == "/tmp\nyes 1\n"
    assert shell.run("printf abc", T).stdout == "abc"
    assert shell.run("echo to-stderr >&2; false", T).stdout == "to-stderr\n"
    assert shell.run("false", T).exit_code == 1
    assert sandbox.shell() is shell


def test_shell_output_cap(sandbox: Sandbox) -> None:
    result = sandbox.shell().run("yes 0123456789 | head -n 20000", T, output_cap=100)
    assert result.truncated and result.stdout == ("0123456789\n" * 10)[:100]
    assert sandbox.shell().run("echo next", T).stdout == "next\n"


def test_shell_timeout_kills_and_restarts(sandbox: Sandbox) -> None:
    shell = sandbox.shell()
    assert shell.run("cd /tmp", T).ok
    command, cmdline = sleep_marker()
    result = shell.run(f"{command} & {command}", 0.5)
    assert result.timed_out and not result.ok
    assert wait_until_gone(cmdline) == []
    after = shell.run("echo ok; pwd", T)
    assert (after.stdout, after.exit_code) == ("ok\n/app\n", 0)


def test_shell_exit_restarts(sandbox: Sandbox) -> None:
    shell = sandbox.shell()
    assert shell.run("exit 4", T).exit_code == 4
    assert shell.run("echo back", T).stdout == "back\n"


# -- registry and errors -----------------------------------------------------------------------------


def test_registry_names_both_backends() -> None:
    assert set(SANDBOX_BACKENDS) == {"local", "docker"}
    with pytest.raises(ValueError, match="docker, local"):
        make_sandbox("nope", SandboxSpec())


def test_unreachable_docker_engine_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/missing.sock")
    with pytest.raises(SandboxError, match="start dockerd or set DOCKER_HOST"):
        make_sandbox("docker", SandboxSpec(docker_image="busybox")).start()


def test_missing_host_tool_names_the_package() -> None:
    from res_repro.sandbox.local import host_tool

    with pytest.raises(SandboxError, match="apt-get install some-package"):
        host_tool("res-no-such-program", "some-package")


def test_missing_busybox_names_the_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from res_repro.sandbox import images

    monkeypatch.setattr(images, "BUSYBOX", tmp_path / "busybox")
    with pytest.raises(SandboxError, match="apt-get install busybox-static"):
        images.ensure_busybox_image()


@pytest.mark.docker
def test_docker_builds_an_environment_once(docker_image: str, tmp_path: Path) -> None:
    import docker.models.images

    (tmp_path / "Dockerfile").write_text(f"FROM {docker_image}\nRUN echo built > /built.txt\n")
    builds = []
    original = docker.models.images.ImageCollection.build

    def counting_build(self: object, **kwargs: object) -> object:
        builds.append(kwargs["tag"])
        return original(self, **kwargs)  # type: ignore[arg-type]

    spec = SandboxSpec(environment_dir=tmp_path)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(docker.models.images.ImageCollection, "build", counting_build)
        for _ in range(2):
            with make_sandbox("docker", spec) as sandbox:
                assert sandbox.exec("cat /built.txt", T).stdout == "built\n"
    assert len(builds) <= 1
    assert all(tag.startswith("res-repro-env:") and len(tag) == len("res-repro-env:") + 16 for tag in builds)


@pytest.mark.docker
def test_docker_streams_a_large_workspace_and_image_app_without_holding_them(
    docker_image: str, tmp_path: Path
) -> None:
    """A 48 MB workspace file and a 48 MB file in the image's /app reach the container while the harness
    holds a few MB at most (tracemalloc's peak), and the image's /app is not kept in memory."""
    import tracemalloc

    from res_repro.sandbox import docker as docker_backend

    size = 48 << 20
    environment = tmp_path / "environment"
    environment.mkdir()
    (environment / "Dockerfile").write_text(
        f"FROM {docker_image}\nRUN mkdir -p /app && head -c {size} /dev/zero > /app/seeded\n"
    )
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    with (workspace / "large").open("wb") as out:
        out.truncate(size)
    spec = SandboxSpec(
        environment_dir=environment,
        workspace=workspace,
        limits=dataclasses.replace(SandboxSpec().limits, workspace_mb=256),
    )
    for _ in range(2):  # the first start reads the image's /app, the second streams it again
        tracemalloc.start()
        try:
            with make_sandbox("docker", spec) as sandbox:
                sizes = sandbox.exec("wc -c < /app/seeded; wc -c < /app/large", T).stdout.split()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert sizes == [str(size), str(size)]
        assert peak < 16 << 20, f"the harness held {peak >> 20} MB copying 96 MB"
    assert docker_backend.STREAMED in docker_backend._SEEDS.values()


# -- escape attempts -----------------------------------------------------------------------------------


def test_cannot_read_host_files(sandbox: Sandbox, tmp_path: Path) -> None:
    secret = tmp_path / "host-secret.txt"
    secret.write_text("host-only-content\n")
    for path in (secret, Path.home() / ".bash_history", Path("/proc/1/environ")):
        result = sandbox.exec(f"cat {path} 2>/dev/null", T)
        assert "host-only-content" not in result.stdout
        assert "API_KEY" not in result.stdout


def test_cannot_signal_host_processes(sandbox: Sandbox) -> None:
    command, cmdline = sleep_marker()
    host = subprocess.Popen(command.split())
    try:
        result = sandbox.exec(f"kill -9 {host.pid}; echo rc=$?", T)
        assert "rc=0" not in result.stdout
        time.sleep(0.2)
        assert host.poll() is None, "a host process was killed from inside the sandbox"
        assert host_pids_with(cmdline) == [host.pid]
    finally:
        host.kill()
        host.wait()


def test_cannot_see_host_processes(sandbox: Sandbox) -> None:
    visible = sandbox.exec("ls /proc | grep -c '^[0-9]'", T).stdout.strip()
    assert int(visible or 0) < 20  # only the sandbox's own few processes


@pytest.fixture
def planted_secret() -> Iterator[tuple[Path, str]]:
    """A root-only host file in /etc, written after the harness started (where the test may write
    /etc), and its content; the host's shadow file when it may not."""
    content = f"res-secret-{random.getrandbits(64):x}"
    if os.geteuid() != 0:
        yield Path("/etc/shadow"), content
        return
    path = Path(f"/etc/res-escape-{random.getrandbits(64):x}.key")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(content + "\n")
    try:
        yield path, content
    finally:
        path.unlink()


def test_cannot_read_root_only_host_files(sandbox: Sandbox, planted_secret: tuple[Path, str]) -> None:
    planted, content = planted_secret
    shadow = Path("/etc/shadow")
    host_shadow = shadow.read_text() if os.access(shadow, os.R_OK) else ""
    result = sandbox.exec(f"cat {planted} /etc/shadow /etc/gshadow /etc/docker/key.json 2>/dev/null", T)
    assert content not in result.stdout, "a root-only host file was read from inside the sandbox"
    for line in host_shadow.splitlines():
        if line.startswith("root:"):
            assert line not in result.stdout, "the host's shadow file was read from inside the sandbox"
    listed = sandbox.exec("ls /etc/ssl/private /etc/ssh 2>/dev/null", T).stdout
    for key in Path("/etc/ssh").glob("ssh_host_*_key") if Path("/etc/ssh").is_dir() else []:
        assert key.name not in listed or sandbox.exec(f"cat {key} 2>/dev/null", T).stdout == ""


@pytest.mark.skipif(os.geteuid() != 0, reason="writes root-only files in the host's /etc (needs root)")
def test_an_open_shell_cannot_read_a_root_only_file_made_or_renamed_in_after_it_started() -> None:
    """The local backend shows the host's /etc (a container shows its image's)."""
    from res_repro.sandbox.local import LocalSandbox

    sandbox = LocalSandbox(SandboxSpec())
    sandbox.start()
    content = f"res-secret-{random.getrandbits(64):x}"
    created = Path(f"/etc/res-late-{random.getrandbits(64):x}.key")
    renamed = Path(f"/etc/res-renamed-{random.getrandbits(64):x}")
    renamed.write_text("public\n")
    renamed.chmod(0o644)
    shell = sandbox.shell()
    assert "public" in shell.run(f"cat {renamed}", T).stdout  # the shell lives from here on
    staged = renamed.with_name(renamed.name + "+")  # as passwd(1) replaces /etc/shadow
    try:
        fd = os.open(created, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(content + "\n")
        fd = os.open(staged, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as out:
            out.write(content + "\n")
        os.rename(staged, renamed)
        seen = shell.run(f"cat {created} {renamed} 2>&1", T).stdout
        fresh = sandbox.exec(f"cat {created} {renamed} 2>&1", T)
        assert content not in seen and content not in fresh.stdout + fresh.stderr
    finally:
        sandbox.close()
        for path in (created, renamed, staged):
            path.unlink(missing_ok=True)


def test_only_the_workspace_is_writable(sandbox: Sandbox, backend: str) -> None:
    # a container's own layer is writable by design (docs/security.md: it lands in the engine's storage)
    probes = ("/dev/res-probe", "/etc/res-probe", "/usr/res-probe", "/res-probe")
    outside = probes if backend == "local" else ()
    for path in outside:
        assert not sandbox.exec(f"touch {path}", T).ok, f"{path} is writable outside the workspace"
    assert sandbox.exec("echo ok > /dev/shm/probe && cat /dev/shm/probe", T).stdout == "ok\n"


def test_a_local_sandbox_with_network_cannot_reach_the_hosts_loopback_or_abstract_sockets() -> None:
    """ "public" network on the local backend: a namespace of its own with outbound NAT (slirp4netns),
    never the host's 127.0.0.1 (a simulated model endpoint, other episodes' services, a Ray head)."""
    import socket

    from res_repro.sandbox.local import LocalSandbox

    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    name = f"res-abstract-{random.getrandbits(32):x}"
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind("\0" + name)
    abstract.listen(1)
    sandbox = LocalSandbox(SandboxSpec(allow_network=True))
    sandbox.start()
    try:
        probe = (
            "cut -d: -f1 /proc/net/dev | tail -n +3 | tr -d ' '; "
            f"(echo > /dev/tcp/127.0.0.1/{port}) 2>/dev/null && echo LOOPBACK; "
            f"(echo > /dev/tcp/10.0.2.2/{port}) 2>/dev/null && echo GATEWAY; "
            'python3 -c "import socket; socket.socket(socket.AF_UNIX)'
            f".connect('\\0{name}')\" 2>/dev/null && echo ABSTRACT"
        )
        for result in (sandbox.exec(probe, T), sandbox.shell().run(probe, T)):
            seen = result.stdout.split()
            assert "tap0" in seen, result  # it has a network of its own
            assert not {"LOOPBACK", "GATEWAY", "ABSTRACT"} & set(seen), result
    finally:
        sandbox.close()
        listener.close()
        abstract.close()


def test_a_sandbox_with_network_cannot_reach_a_service_on_the_hosts_loopback(make: MakeSandbox) -> None:
    """Both backends: outbound access never includes the host's 127.0.0.1 (a container's loopback is its
    own; the local sandbox's is slirp4netns's, with host loopback disabled)."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.5)
    port = listener.getsockname()[1]
    sandbox = make(allow_network=True)
    try:
        probe = f"timeout 3 busybox nc -w 2 127.0.0.1 {port} </dev/null; echo probed"
        for result in (sandbox.exec(probe, T), sandbox.shell().run(probe, T)):
            assert "probed" in result.stdout, result
            with pytest.raises(TimeoutError):  # the host's side: no connection arrived
                listener.accept()[0].close()
    finally:
        listener.close()


def test_a_seccomp_filter_is_in_force(sandbox: Sandbox) -> None:
    """Both backends filter system calls (Docker's default profile; the local backend's pyseccomp filter),
    in a fresh command and in the agent's shell."""
    probe = "grep '^Seccomp:' /proc/self/status"
    for result in (sandbox.exec(probe, T), sandbox.shell().run(probe, T)):
        assert result.stdout.split() == ["Seccomp:", "2"], result  # 2: a filter


KEYCTL_X86_64 = 250


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the system call number is x86-64's")
def test_the_local_sandbox_refuses_the_kernel_keyring_as_docker_does() -> None:
    from res_repro.sandbox.local import LocalSandbox

    probe = (
        'python3 -c "import ctypes; libc = ctypes.CDLL(None, use_errno=True); '
        f'print(libc.syscall({KEYCTL_X86_64}, 0, -4, 0, 0, 0), ctypes.get_errno())"'
    )  # keyctl(KEYCTL_GET_KEYRING_ID, the user keyring): a read of the host's keys when allowed
    sandbox = LocalSandbox(SandboxSpec())
    sandbox.start()
    try:
        for result in (sandbox.exec(probe, T), sandbox.shell().run(probe, T)):
            assert result.stdout.split() == ["-1", "1"], result  # EPERM
    finally:
        sandbox.close()


@pytest.mark.skipif(os.geteuid() != 0, reason="the capped workspace is a tmpfs, which needs root")
def test_the_local_workspace_caps_its_file_count() -> None:
    import dataclasses

    from res_repro.sandbox.local import MIN_INODES, LocalSandbox

    limits = dataclasses.replace(SandboxSpec().limits, workspace_mb=16)
    sandbox = LocalSandbox(SandboxSpec(limits=limits))
    sandbox.start()
    try:
        made = sandbox.exec(
            f"cd /tmp && for i in $(seq {MIN_INODES + 500}); do : > f$i || break; done; ls | wc -l", T
        )
        assert int(made.stdout.split()[-1]) < MIN_INODES, made
    finally:
        sandbox.close()


@pytest.mark.slow
def test_the_local_sandbox_holds_its_memory_together_shared_memory_included() -> None:
    """memory_mb is per process (RLIMIT_AS); the memory cgroup caps the whole sandbox: six processes each
    holding a 100 MB memfd (shmem, outside any address space) cannot all live under 128 + 64 MB."""
    import dataclasses

    from res_repro.sandbox.cgroups import memory_hierarchy
    from res_repro.sandbox.local import LocalSandbox

    if memory_hierarchy() is None:
        pytest.skip("no writable memory cgroup on this host (needs root and the memory controller)")
    limits = dataclasses.replace(SandboxSpec().limits, workspace_mb=64)
    sandbox = LocalSandbox(SandboxSpec(memory_mb=128, limits=limits))
    sandbox.start()
    hold = (
        "import os, sys, time\\nfd = os.memfd_create('held')\\n"
        "for _ in range(10):\\n    os.write(fd, b'x' * (10 << 20))\\n"
        "print('held', flush=True)\\ntime.sleep(30)\\n"
    )
    try:
        sandbox.write_file("/app/hold.py", hold)
        result = sandbox.exec(
            "for i in 1 2 3 4 5 6; do python3 /app/hold.py & done; sleep 5; jobs -r | wc -l", T
        )
        assert result.stdout.count("held") < 6 and int(result.stdout.split()[-1]) < 6, result
        assert sandbox.cgroup is not None and sandbox.cgroup.memory is not None
        assert sandbox.cgroup.memory_usage() <= (128 + 64) << 20
    finally:
        sandbox.close()


def test_a_file_is_read_back_no_further_than_asked(sandbox: Sandbox) -> None:
    """A 512 MB sparse file costs the harness what it asked for, not the file (local and Docker)."""
    assert sandbox.exec("truncate -s 512M /app/sparse && printf abc > /app/small", T).exit_code == 0
    assert sandbox.read_file("/app/sparse", limit=4096) == b"\0" * 4096
    assert sandbox.read_file("/app/small", limit=4096) == b"abc"
    assert sandbox.read_file("/app/small") == b"abc"
