"""The Harbor task format: loading, saving, and one clear error per malformed directory."""

from __future__ import annotations

import shutil

import pytest
from task_factory import TASK_TOML, make_task

from res_repro.env.errors import TaskFormatError
from res_repro.env.formats import load_path
from res_repro.env.formats.harbor import load_task, save_task, workspace_dir


def test_load_task_reads_every_table(tmp_path):
    task = load_task(make_task(tmp_path))
    assert task.task_id == "write-done"
    assert task.instruction.startswith("Write the word done")
    assert task.config.verifier.timeout_sec == 30
    assert task.config.metadata.tags == ["test"]
    assert task.config.environment.allow_internet is False
    assert workspace_dir(task) == tmp_path / "write-done" / "environment" / "workspace"


def test_save_then_load_round_trips(tmp_path):
    original = load_task(make_task(tmp_path / "src"))
    copy = load_task(save_task(original, tmp_path / "dst" / "write-done"))
    assert copy.config == original.config
    assert copy.instruction == original.instruction
    assert copy.content_hash != ""
    assert (copy.path / "solution" / "solve.sh").read_text() == (
        original.path / "solution" / "solve.sh"
    ).read_text()


def test_save_refuses_to_overwrite(tmp_path):
    task = load_task(make_task(tmp_path))
    with pytest.raises(FileExistsError):
        save_task(task, task.path)


def test_content_hash_changes_with_any_file(tmp_path):
    path = make_task(tmp_path)
    before = load_task(path).content_hash
    (path / "tests" / "test.sh").write_text("#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n")
    assert load_task(path).content_hash != before


def test_load_tasks_from_a_folder_is_sorted(tmp_path):
    make_task(tmp_path, "b-task")
    make_task(tmp_path, "a-task")
    assert [t.task_id for t in load_path(tmp_path)] == ["a-task", "b-task"]


@pytest.mark.parametrize(
    ("toml", "needle"),
    [
        ('[verifier]\ntimeout_sec = "soon"\n', "field 'verifier.timeout_sec'"),
        ("[verifier]\ntimeout_sec = -1\n", "field 'verifier.timeout_sec'"),
        ('[environment]\nnetwork_mode = "sometimes"\n', "field 'environment.network_mode'"),
        ("[[steps]]\nname = 'one'\n", "field 'steps'"),
        ("[environment]\nallow_internet = 'maybe'\n", "field 'environment.allow_internet'"),
        ("[task\nname = 1\n", "not valid TOML"),
    ],
)
def test_malformed_task_toml_names_file_and_field(tmp_path, toml, needle):
    path = make_task(tmp_path, toml=toml)
    with pytest.raises(TaskFormatError) as info:
        load_task(path)
    message = str(info.value)
    assert str(path / "task.toml") in message
    assert needle in message
    assert "\n" not in message


@pytest.mark.parametrize("missing", ["instruction.md", "tests/test.sh", "task.toml"])
def test_missing_file_is_named(tmp_path, missing):
    path = make_task(tmp_path)
    (path / missing).unlink()
    with pytest.raises(TaskFormatError, match=str(path / missing)):
        load_task(path)


def test_empty_folder_is_an_error(tmp_path):
    with pytest.raises(TaskFormatError, match="holds no task directory"):
        load_path(tmp_path)


def test_default_tables_are_filled_in(tmp_path):
    path = make_task(tmp_path, toml='[task]\nname = "x"\n')
    task = load_task(path)
    assert task.config.agent.timeout_sec == 600
    assert TASK_TOML  # the factory's full form is exercised by the other tests


def test_the_local_sandbox_refuses_a_task_that_needs_its_docker_environment(tmp_path):
    from res_repro.env.formats import format_of

    task_dir = make_task(tmp_path, "builds")
    dockerfile = task_dir / "environment" / "Dockerfile"
    dockerfile.write_text("FROM python:3.12-slim\nRUN pip install pytest\nWORKDIR /app\n")
    task = load_task(task_dir)
    harbor = format_of(task)
    assert harbor.refusal(task, "local") is None  # it ships a workspace/: the local sandbox can run it
    shutil.rmtree(task_dir / "environment" / "workspace")
    task = load_task(task_dir)
    assert "RUN/COPY steps" in harbor.refusal(task, "local")
    assert "use --sandbox docker" in harbor.refusal(task, "local")
    assert harbor.refusal(task, "docker") is None
    dockerfile.write_text("FROM python:3.12-slim\nWORKDIR /app\n")
    assert harbor.refusal(load_task(task_dir), "local") is None  # nothing built into the image
