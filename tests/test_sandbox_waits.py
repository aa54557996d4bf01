"""The local sandbox's waits on kernel events: the inotify watch that tells when ``/etc`` must be scanned
again, the cgroup kill that waits for processes to exit instead of sleeping fixed pauses, and the
shell's command file, rewritten without freeing blocks."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from res_repro.sandbox import cgroups
from res_repro.sandbox.base import SandboxSpec
from res_repro.sandbox.local import LocalSandbox, copy_public, unreadable_entries
from res_repro.sandbox.watch import FolderWatch


def test_watch_reports_nothing_until_a_watched_folder_changes(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    copy = tmp_path.parent / f"{tmp_path.name}-copy"  # outside the watched folders
    copy.mkdir()
    watch = FolderWatch()
    copy_public(str(tmp_path), copy, watch)
    try:
        assert not watch.changed()
        (tmp_path / "elsewhere.txt").touch()  # the top folder is watched
        assert watch.changed()
        assert not watch.changed()  # each change is reported once
        (tmp_path / "sub" / "key").write_text("k")
        assert watch.changed()
        os.chmod(tmp_path / "sub" / "key", 0o600)  # a permission change below a watched folder
        assert watch.changed()
    finally:
        watch.close()


def test_scan_finds_unreadable_files_and_folders_below_readable_ones(tmp_path: Path) -> None:
    (tmp_path / "open").mkdir()
    secret, closed = tmp_path / "open" / "key", tmp_path / "closed"
    secret.write_text("k")
    secret.chmod(0o600)
    closed.mkdir(mode=0o700)
    (tmp_path / "open" / "plain").write_text("p")
    (tmp_path / "link").symlink_to(secret)
    assert sorted(unreadable_entries(str(tmp_path))) == sorted([str(secret), str(closed)])


def test_cgroup_kill_waits_for_the_exit_not_a_fixed_pause() -> None:
    sleeper = subprocess.Popen(["sleep", "60"])
    try:
        started = time.monotonic()
        cgroups._kill_and_wait([sleeper.pid], timeout=30.0)
        waited = time.monotonic() - started
        assert sleeper.poll() == -9
        assert waited < 10.0, f"the kill waited {waited:.1f} s: it slept instead of waiting for the exit"
    finally:
        sleeper.kill()
        sleeper.wait()


@pytest.mark.skipif(cgroups.pids_hierarchy() is None, reason="no writable pids cgroup on this host")
def test_cgroup_remove_leaves_no_process_and_no_cgroup() -> None:
    group = cgroups.pids_cgroup(16)
    assert group is not None
    proc = subprocess.Popen(["sh", "-c", f"echo $$ > {group.procs_file} && exec sleep 60"])
    try:
        deadline = time.monotonic() + 10
        while not group.pids() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert group.pids() == [proc.pid]
        group.remove()
        assert proc.wait(timeout=10) == -9
        assert not group.path.exists()
    finally:
        proc.kill()
        proc.wait()


def test_a_one_time_scan_runs_once_when_two_threads_ask_at_once() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from res_repro.sandbox.local import _once

    runs: list[int] = []

    @_once
    def scan() -> tuple[str, ...]:
        runs.append(1)
        time.sleep(0.2)  # long enough that the second caller arrives while the first computes
        return ("/usr/lib/secret",)

    with ThreadPoolExecutor(2) as pool:
        answers = list(pool.map(lambda _: scan(), range(2)))
    assert answers == [("/usr/lib/secret",)] * 2 and runs == [1]


def test_shell_commands_rewrite_one_command_file_in_place() -> None:
    """Replacing the command file would free the old one's blocks on every command (a wait on the device
    where the disk is mounted with ``discard``); rewriting it must still leave no tail of a longer
    command behind."""
    with LocalSandbox(SandboxSpec()) as sandbox:
        shell = sandbox.shell()
        long_command = "echo " + "x" * 20000 + " > /dev/null; echo long"
        assert shell.run(long_command, 30).stdout.strip() == "long"
        (script,) = sandbox.control_dir.iterdir()
        inode = script.stat().st_ino
        assert shell.run("echo short", 30).stdout == "short\n"
        (rewritten,) = sandbox.control_dir.iterdir()
        assert (rewritten.name, rewritten.stat().st_ino) == (script.name, inode)
        assert rewritten.read_text() == "echo short"
