"""The pool of warm local sandboxes: each episode gets a started, never used sandbox whose shell was
started before its first command; specs that differ in what shapes a started sandbox never share one;
the pool's block leaves no process, folder or cgroup behind; and runs give the records they give
without it.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

import pytest
from fault_helpers import DEADLINE_S, wait_for_no_descendants, wait_until_removed

from res_repro.agents import build_agents
from res_repro.benchmarks.registry import load_benchmark
from res_repro.evaluation import runner
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.runner import EpisodeRequest, evaluate
from res_repro.evaluation.store import EpisodeStore
from res_repro.sandbox import LocalSandbox, SandboxSpec
from res_repro.sandbox import local as local_module
from res_repro.sandbox import warm as warm_module
from res_repro.sandbox.local import LAUNCHER_PIDS, WARM_SUPPLY
from res_repro.sandbox.warm import WarmPool, warm_key, warm_sandboxes

T = 30.0


def wait_ready(pool: WarmPool, count: int = 1) -> None:
    """Poll until ``count`` warm sandboxes are ready (the background start has finished)."""
    deadline = time.monotonic() + DEADLINE_S
    while pool.ready() < count:
        assert time.monotonic() < deadline, "no warm sandbox became ready"
        time.sleep(0.01)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace holding one file."""
    folder = tmp_path / "workspace"
    folder.mkdir()
    (folder / "given.txt").write_text("given\n")
    return folder


def test_each_episode_gets_a_fresh_warm_sandbox(workspace: Path) -> None:
    spec = SandboxSpec(workspace=workspace)
    with warm_sandboxes(2) as pool:
        first = LocalSandbox(spec)
        first.start()
        assert pool.served["cold"] == 1  # an empty pool: started cold, a replacement started for later
        shell = first.shell()
        assert shell.run("echo left > /app/left.txt && echo left > /tmp/left.txt", T).ok
        first_pid, first_root = shell.pid, first.root
        first.close()

        wait_ready(pool)
        second = LocalSandbox(spec)
        second.start()
        assert pool.served["warm"] == 1
        assert second.shell().pid is not None  # its shell was started before its first command
        assert second.shell().pid != first_pid and second.root != first_root
        listing = second.shell().run("ls -A /app /tmp; cat /app/given.txt; pwd", T)
        assert listing.ok
        assert "left.txt" not in listing.stdout
        assert "given\n" in listing.stdout and listing.stdout.endswith("/app\n")
        second.close()
    assert wait_for_no_descendants() == []


COMPARED = """cat /app/given.txt; env | sort; printf '[%s]\\n' "$GIVEN"; pwd; echo to-stderr >&2; exit 3"""


def warmed(pool: WarmPool, spec: SandboxSpec) -> None:
    """Ask an empty ``pool`` for a sandbox of ``spec`` (it starts cold, and the pool a replacement) and
    wait until the replacement is ready."""
    with LocalSandbox(spec):
        pass
    wait_ready(pool)


ODD_NAMES = {"MY-VAR": "1", "__cwd": "/", "count": "9", "UID": "5"}  # not bash's, or the launcher's own


@pytest.mark.parametrize(
    ("command", "variables"),
    [
        (COMPARED, {"GIVEN": "two words\nand a line", "EQUALS": "=x=", **ODD_NAMES}),
        (["env"], {"GIVEN": "x", **ODD_NAMES}),  # a program, no shell between: exactly the variables
    ],
)
def test_a_warm_sandboxs_first_command_runs_as_a_fresh_one_would(
    workspace: Path, command: str | list[str], variables: dict[str, str]
) -> None:
    spec = SandboxSpec(workspace=workspace, env={"SPEC": "1"})
    with warm_sandboxes(1) as pool:
        warmed(pool, spec)
        sandbox = LocalSandbox(spec)
        sandbox.start()
        assert pool.served["warm"] == 1 and sandbox.launcher_pid is not None
        limit = sandbox.cgroup.path / "pids.max" if sandbox.cgroup is not None else None
        if limit is not None:  # the launcher's processes are on top of the agent's limit
            assert int(limit.read_text()) == spec.limits.pids + LAUNCHER_PIDS
        launched = sandbox.exec(command, T, cwd="/tmp", env=variables)
        assert sandbox.launcher_pid is None  # used once; later commands start their own bwrap
        if limit is not None:
            assert int(limit.read_text()) == spec.limits.pids
        fresh = sandbox.exec(command, T, cwd="/tmp", env=variables)
        sandbox.close()
    assert (launched.exit_code, launched.stderr) == (fresh.exit_code, fresh.stderr)
    assert sorted(launched.stdout.splitlines()) == sorted(fresh.stdout.splitlines())  # env's order may differ
    assert "SPEC=1\n" in launched.stdout and "MY-VAR=1\n" in launched.stdout
    if isinstance(command, str):
        assert launched.exit_code == 3 and launched.stderr == "to-stderr\n"
        assert launched.stdout.startswith("given\n") and launched.stdout.endswith("/tmp\n")
        assert "[two words\nand a line]\n" in launched.stdout
    else:
        assert launched.ok and "SHLVL" not in launched.stdout and "PWD=/tmp\n" in launched.stdout
    assert wait_for_no_descendants() == []


def test_a_launcher_that_died_gives_way_to_a_fresh_bwrap_and_one_past_its_timeout_is_killed(
    workspace: Path,
) -> None:
    spec = SandboxSpec(workspace=workspace)
    with warm_sandboxes(1) as pool:
        warmed(pool, spec)
        dead, slow = LocalSandbox(spec), LocalSandbox(spec)
        dead.start()
        wait_ready(pool)  # the replacement the first one's start asked for
        slow.start()
        assert dead.launcher_pid is not None and slow.launcher_pid is not None
        launcher = dead.launcher_pid
        os.killpg(launcher, 9)
        deadline = time.monotonic() + DEADLINE_S
        while Path(f"/proc/{launcher}/stat").read_text().split()[2] != "Z":  # dead, not yet reaped
            assert time.monotonic() < deadline
            time.sleep(0.01)
        answered = dead.exec("cat /app/given.txt", T)
        timed_out = slow.exec("sleep 30", 0.5)
        dead.close()
        slow.close()
    assert answered.ok and answered.stdout == "given\n"
    assert timed_out.timed_out and timed_out.seconds < 10
    assert wait_for_no_descendants() == []


def test_a_host_secret_written_since_the_launcher_started_is_masked_from_the_command(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = SandboxSpec(workspace=workspace)
    with warm_sandboxes(1) as pool:
        warmed(pool, spec)
        with LocalSandbox(spec) as sandbox:
            assert sandbox.launcher_pid is not None
            masks = local_module.host_secret_masks()
            # as if /etc/passwd had become unreadable: a fresh bwrap hides it behind /dev/null
            monkeypatch.setattr(
                local_module, "host_secret_masks", lambda: [*masks, "--ro-bind", "/dev/null", "/etc/passwd"]
            )
            shown = sandbox.exec("cat /etc/passwd", T)
            assert sandbox.launcher_pid is None
    assert "root:" not in shown.stdout + shown.stderr
    assert wait_for_no_descendants() == []


def test_without_the_pool_the_shell_starts_on_the_first_command(workspace: Path) -> None:
    sandbox = LocalSandbox(SandboxSpec(workspace=workspace))
    with sandbox:
        assert sandbox.shell().pid is None
        assert sandbox.shell().run("true", T).ok
        assert sandbox.shell().pid is not None


def test_specs_that_shape_the_started_sandbox_never_share_one(workspace: Path) -> None:
    closed = SandboxSpec(workspace=workspace)
    networked = dataclasses.replace(closed, allow_network=True)
    other_files = dataclasses.replace(closed, workspace=workspace.parent, docker_image="ignored:latest")
    assert warm_key(closed) != warm_key(networked)
    assert warm_key(closed) == warm_key(other_files)
    with warm_sandboxes(2) as pool:
        with LocalSandbox(closed):  # started cold: a warm one for its key is started for later
            wait_ready(pool)
        with LocalSandbox(networked) as sandbox:
            assert pool.served == {"cold": 2}
            listed = sandbox.exec("cat /proc/net/dev", T)
            interfaces = listed.stdout
        wait_ready(pool, 2)
        with LocalSandbox(other_files):
            assert pool.served["warm"] == 1
    assert interfaces.count(":") > 1, listed  # the networked sandbox has an interface beyond lo


def test_the_block_leaves_nothing_behind(workspace: Path) -> None:
    spec = SandboxSpec(workspace=workspace)
    with warm_sandboxes(3) as pool:
        with LocalSandbox(spec) as sandbox:
            sandbox.shell().run("sleep 600 >/dev/null 2>&1 &", T)
        wait_ready(pool)
        warm = [entry[1] for entry in pool._ready]
        folders = [sandbox.root.parent for sandbox in warm]
        cgroups = [sandbox.cgroup.path for sandbox in warm if sandbox.cgroup is not None]
    assert wait_for_no_descendants() == []
    assert wait_until_removed([*folders, *cgroups]) == []  # removed in the background after close
    assert WARM_SUPPLY.current is None
    with LocalSandbox(spec) as sandbox:  # outside the block, sandboxes start cold again
        assert sandbox.shell().pid is None


def test_a_change_to_the_host_secrets_discards_a_warm_sandbox(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = SandboxSpec(workspace=workspace)
    with warm_sandboxes(2) as pool:
        LocalSandbox(spec).start()
        wait_ready(pool)
        masks = warm_module.host_secret_masks()
        monkeypatch.setattr(
            warm_module, "host_secret_masks", lambda: [*masks, "--ro-bind", "/dev/null", "/x"]
        )
        with LocalSandbox(spec) as sandbox:
            assert pool.served["stale"] == 1
            assert sandbox.shell().pid is None  # started cold, with the masks of now


def test_a_forked_child_never_takes_its_parents_sandboxes(workspace: Path) -> None:
    spec = SandboxSpec(workspace=workspace)
    with warm_sandboxes(2) as pool:
        with LocalSandbox(spec):
            wait_ready(pool)
        child = os.fork()
        if child == 0:
            os._exit(0 if pool.take(spec) is None else 1)
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
        assert pool.ready() == 1


def comparable(record: EpisodeRecord) -> dict[str, Any]:
    """A record without what changes from run to run (times)."""
    data = record.to_dict()
    data.pop("wall_seconds")
    return data


@pytest.mark.slow
def test_runs_give_the_same_records_with_the_pool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tasks = load_benchmark("terminal_bundled", {"limit": 3})
    agents = build_agents(["explorer-expert", "oracle"])
    requests = [EpisodeRequest(task, agent) for task in tasks for agent in agents]
    pools: list[WarmPool] = []

    @contextmanager
    def recorded(limit: int) -> Iterator[WarmPool]:
        with warm_sandboxes(limit) as pool:
            pools.append(pool)
            yield pool

    def run(root: Path) -> list[dict[str, Any]]:
        records = evaluate(
            requests, agents=agents, backend="local", store=EpisodeStore(root), workers=2, show_progress=False
        )
        return [comparable(record) for record in records]

    monkeypatch.setattr(runner, "warm_sandboxes", recorded)
    pooled = run(tmp_path / "pooled")
    assert len(pools) == 1 and pools[0].limit == 2 * runner.WARM_SANDBOXES_PER_WORKER
    assert sum(pools[0].served.values()) >= len(requests)  # every episode's sandbox asked the pool
    monkeypatch.setattr(runner, "warm_sandboxes", lambda limit: nullcontext())
    plain = run(tmp_path / "plain")
    assert pooled == plain
    assert {record["stop_reason"] for record in plain} == {"answered"}
    assert wait_for_no_descendants() == []


@pytest.mark.timeout(60)
def test_a_start_failing_unexpectedly_sends_episodes_cold_and_the_close_waits_for_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def stuck_probe(self: LocalSandbox) -> None:  # bubblewrap's probe timing out, say
        raise subprocess.TimeoutExpired("bwrap", 30)

    monkeypatch.setattr(LocalSandbox, "warm_up", stuck_probe)
    with warm_sandboxes(2) as pool:
        for _ in range(4):
            assert pool.take(SandboxSpec()) is None
    assert pool.served == {"cold": 4}
    assert pool.ready() == 0 and WARM_SUPPLY.current is None


def test_background_work_waits_out_one_delay_from_when_it_was_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Deferred steps start no sooner than the delay after they were asked for, steps asked for together
    wait once between them, and a step run after its delay has passed starts at once."""
    delay = 0.3
    monkeypatch.setattr(local_module, "BACKGROUND_DELAY_S", delay)
    ran: list[float] = []
    asked = time.monotonic()
    first, second = local_module.deferred(ran.append), local_module.deferred(ran.append)
    first(0.0)
    second(0.0)
    finished = time.monotonic()
    assert ran == [0.0, 0.0]
    assert delay <= finished - asked < 2 * delay  # one wait for both, not one each
    late = local_module.deferred(lambda: time.monotonic())
    time.sleep(delay)
    called = time.monotonic()
    assert late() - called < delay


def test_a_refill_waits_out_the_delay_unless_an_episode_claims_it_or_the_pool_closes(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The replacement a take asks for does not start during the delay; a second episode arriving then
    claims it, cutting the delay short instead of starting a second sandbox cold; closing the pool does
    not wait the delay out either."""
    delay = 5.0  # far longer than any start, so a wait that was not cut short shows
    monkeypatch.setattr(local_module, "BACKGROUND_DELAY_S", delay)
    spec = SandboxSpec(workspace=workspace)
    started = time.monotonic()
    with warm_sandboxes(2) as pool:
        first = LocalSandbox(spec)
        first.start()  # cold: an empty pool; its replacement waits out the delay
        time.sleep(0.5)
        assert pool.ready() == 0
        second = LocalSandbox(spec)
        second.start()
        assert pool.served == {"cold": 1, "waited": 1}
        assert time.monotonic() - started < delay
        assert second.shell().run("cat /app/given.txt", T).stdout == "given\n"
        first.close()
        second.close()
    assert time.monotonic() - started < delay  # the close hurried the refill the second take asked for
    assert pool.ready() == 0
    assert wait_for_no_descendants() == []
