"""The Docker backend's command path: one engine round trip per command through the runner shell, the
image's /app read once per image, and the pure pieces (the runner's shell text, the bench's verdict)."""

from __future__ import annotations

import shlex
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import bench_sandbox
import pytest

from res_repro.sandbox import SandboxSpec, make_sandbox
from res_repro.sandbox.base import ShellFraming
from res_repro.sandbox.docker import DockerSandbox
from res_repro.sandbox.docker_exec import command_body, runner_line

T = 10.0


def test_docker_exec_verdict_fails_a_slow_command_and_passes_a_fast_one() -> None:
    slow_met, slow_line = bench_sandbox.docker_exec_verdict(60.0, 0.3)  # the API-call path's cost
    assert not slow_met and slow_line.endswith("MISSED") and "200.0x the local shell" in slow_line
    edge_met, _ = bench_sandbox.docker_exec_verdict(bench_sandbox.DOCKER_EXEC_TARGET_MS * 1.01, 0.3)
    assert not edge_met
    fast_met, fast_line = bench_sandbox.docker_exec_verdict(3.0, 0.3)
    assert fast_met and fast_line.endswith("met") and "20.0x faster than the old 60 ms" in fast_line


def test_the_runner_line_runs_the_command_as_sh_would() -> None:
    """The runner's input, fed to a host sh, runs the command in its folder with its variables and
    frames its status on both streams, whatever quotes and newlines the command holds."""
    framing = ShellFraming("__frame_nonce")
    tricky = 'it\'s "quoted"\nand $HOME stays literal'
    body = command_body(
        ["sh", "-c", 'printf "%s|%s|%s" "$PWD" "$X" "$1"; echo err >&2; exit 7', "sh", tricky],
        "/tmp",
        {"X": "a b'c"},
    )
    done = subprocess.run(
        ["sh", "-c", "exec 3>&1 5>&2; . /dev/stdin"],
        input=runner_line(body, framing),
        capture_output=True,
        check=True,
    )
    assert done.stdout == f"/tmp|a b'c|{tricky}\n__frame_nonce 7\n".encode()
    assert done.stderr == b"err\n\n__frame_nonce 7\n"
    missing = command_body(["true"], "/no/such/folder", {})
    done = subprocess.run(["sh", "-c", f"exec 3>&1 5>&2; {missing}"], capture_output=True, check=False)
    assert done.returncode == 126
    assert shlex.split(command_body(["a b"], "/app", {}))[-1] == "a b"


@pytest.fixture
def docker_sandbox(docker_image: str) -> Iterator[DockerSandbox]:
    """A started Docker sandbox on the busybox test image."""
    sandbox = make_sandbox("docker", SandboxSpec(docker_image=docker_image))
    assert isinstance(sandbox, DockerSandbox)
    with sandbox:
        yield sandbox


@pytest.mark.docker
def test_a_command_is_one_round_trip(docker_sandbox: DockerSandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    docker_sandbox.exec("true", T)  # the runner is started by the first command (or the start)
    api = docker_sandbox.client.api
    calls: list[str] = []
    for name in ("exec_create", "exec_start", "exec_inspect", "exec_resize"):
        original = getattr(api, name)
        monkeypatch.setattr(api, name, lambda *a, _n=name, _o=original, **k: calls.append(_n) or _o(*a, **k))
    results = [docker_sandbox.exec(f"echo {i}; echo e{i} >&2; exit {i}", T) for i in range(5)]
    assert calls == []
    assert [(r.stdout, r.stderr, r.exit_code) for r in results] == [
        (f"{i}\n", f"e{i}\n", i) for i in range(5)
    ]


@pytest.mark.docker
def test_output_of_a_background_process_belongs_to_its_command(docker_sandbox: DockerSandbox) -> None:
    """A command is over once every process holding its output has let go, as a ``docker exec`` was:
    nothing a command left behind reaches the next command's output."""
    first = docker_sandbox.exec("(sleep 0.3; echo late; echo late-err >&2) & echo now", T)
    assert (first.stdout, first.stderr, first.exit_code) == ("now\nlate\n", "late-err\n", 0)
    second = docker_sandbox.exec("echo next", T)
    assert (second.stdout, second.stderr) == ("next\n", "")


@pytest.mark.docker
def test_commands_at_once_each_get_their_own_output(docker_sandbox: DockerSandbox) -> None:
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: docker_sandbox.exec(f"sleep 0.2; echo {i}", T), range(4)))
    assert [r.stdout for r in results] == [f"{i}\n" for i in range(4)]


@pytest.mark.docker
def test_the_images_app_is_read_once(
    docker_image: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import docker

    (tmp_path / "Dockerfile").write_text(
        f"FROM {docker_image}\nRUN mkdir -p /app && echo seeded > /app/seed.txt\n"
    )
    spec = SandboxSpec(environment_dir=tmp_path)
    created: list[str] = []
    original = docker.APIClient.create_container

    def counting(self: docker.APIClient, *args: object, **kwargs: object) -> object:
        created.append(str(args[0] if args else kwargs.get("image")))
        return original(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(docker.APIClient, "create_container", counting)
    for _ in range(3):
        with make_sandbox("docker", spec) as sandbox:
            assert sandbox.exec("cat /app/seed.txt", T).stdout == "seeded\n"
    assert len(created) == 3 + 1  # one container per sandbox, plus one read of the image's /app


@pytest.mark.docker
def test_a_runner_killed_between_commands_is_replaced(docker_sandbox: DockerSandbox) -> None:
    assert docker_sandbox.exec("true", T).ok
    (runner,) = docker_sandbox._runners
    docker_sandbox.run_quietly(["kill", "-9", runner.pid])
    time.sleep(0.2)
    result = docker_sandbox.exec("echo again", T)
    assert (result.stdout, result.exit_code) == ("again\n", 0)
    assert docker_sandbox._runners and docker_sandbox._runners[0] is not runner
