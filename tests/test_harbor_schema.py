"""Harbor task files as Terminal-Bench 2.1 and Harbor 0.25 write them: every field Harbor defines loads,
unknown keys warn once and are kept, and the fields that change an episode are honoured."""

from __future__ import annotations

import logging
import re
import shutil
from pathlib import Path

import pytest

from res_repro.agents.reference import OracleAgent
from res_repro.env.errors import TaskFormatError
from res_repro.env.formats import format_of, load_task_dir
from res_repro.env.formats.harbor import load_task, save_task
from res_repro.env.formats.harbor.environment import sandbox_spec_for
from res_repro.env.formats.harbor.schema import NetworkMode, VerifierMode
from res_repro.evaluation.episode import run_episode

FIXTURES = Path(__file__).parent / "fixtures" / "harbor"
TB21 = FIXTURES / "tb21-shaped" / "count-words"
HARBOR_14 = FIXTURES / "harbor-1.4-shaped" / "sum-column"


def _copy(source: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(source, tmp_path / source.name))


def test_a_terminal_bench_2_1_task_file_loads_with_every_field() -> None:
    task = load_task(TB21)
    config = task.config
    assert (task.task_id, config.task.name, config.schema_version) == (
        "count-words",
        "fixtures/count-words",
        "1.1",
    )
    assert config.task.authors[0].name == "Fixture Author"
    assert config.environment.docker_image == "fixtures/count-words:20260101"
    assert config.environment.network is NetworkMode.PUBLIC  # allow_internet = true, before network_mode
    assert config.metadata.model_extra["expert_time_estimate_min"] == 2.0
    assert config.solution_timeout_sec == 600.0  # no [solution] timeout: the agent's, as Harbor does


def test_a_harbor_1_4_task_file_loads_and_warns_once_about_an_unknown_key(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = _copy(HARBOR_14, tmp_path)
    with caplog.at_level(logging.WARNING):
        task = load_task(path)
        load_task(path)
    warnings = [r.getMessage() for r in caplog.records if "unknown key" in r.getMessage()]
    assert warnings == [
        f"{path / 'task.toml'}: unknown key 'environment.future_option' "
        + ("(kept as it is; a newer Harbor may define it)")
    ]
    config = task.config
    assert config.verifier.mode is VerifierMode.SEPARATE
    assert config.environment.network is NetworkMode.NO_NETWORK
    assert config.artifact_paths() == ["/app/total.txt", "/app/notes.log"]
    saved = load_task(save_task(task, tmp_path / "saved"))
    assert saved.config.environment.model_extra == {"future_option": "kept"}
    assert saved.config.artifact_paths() == config.artifact_paths()


def test_schema_1_0_calls_its_version_version(tmp_path: Path) -> None:
    path = _copy(TB21, tmp_path)
    toml = (path / "task.toml").read_text().replace('schema_version = "1.1"', 'version = "1.0"')
    (path / "task.toml").write_text(toml)
    assert load_task(path).config.schema_version == "1.0"


def test_a_prebuilt_image_needs_no_environment_folder(tmp_path: Path) -> None:
    path = _copy(TB21, tmp_path)
    shutil.rmtree(path / "environment")
    task = load_task_dir(path)
    assert sandbox_spec_for(task).docker_image == "fixtures/count-words:20260101"
    assert sandbox_spec_for(task).environment_dir is None


def test_an_allowlist_network_is_refused_naming_the_field(tmp_path: Path) -> None:
    path = _copy(HARBOR_14, tmp_path)
    toml = (
        (path / "task.toml")
        .read_text()
        .replace("[environment]\n", '[environment]\nallowed_hosts = ["example.org"]\n')
        .replace('network_mode = "no-network"\nworkdir', 'network_mode = "allowlist"\nworkdir')
    )
    (path / "task.toml").write_text(toml)
    task = load_task(path)
    with pytest.raises(TaskFormatError, match=re.escape("field 'environment.network_mode': 'allowlist'")):
        sandbox_spec_for(task)
    for backend in ("local", "docker"):  # refused before any episode, on every backend
        assert "environment.network_mode: 'allowlist'" in format_of(task).refusal(task, backend)


def test_a_separate_verifier_sees_the_agents_app_but_nothing_else_it_left(tmp_path: Path) -> None:
    separate = load_task(_copy(HARBOR_14, tmp_path))
    record = run_episode(separate, OracleAgent(), backend="local", episode_id="separate")
    assert record.passed, record.grade
    assert record.grade is not None
    assert record.grade.evidence["artifacts"]["/app/total.txt"].strip() == "17"
    assert "not collected" in record.grade.evidence["artifacts"]["/app/notes.log"]
    shared_dir = tmp_path / "shared"
    shutil.copytree(separate.path, shared_dir)
    toml = (
        (shared_dir / "task.toml")
        .read_text()
        .replace('environment_mode = "separate"', 'environment_mode = "shared"')
    )
    (shared_dir / "task.toml").write_text(toml)
    shared = run_episode(load_task(shared_dir), OracleAgent(), backend="local", episode_id="shared")
    assert not shared.passed  # the same verifier in the agent's sandbox finds what the agent left in /tmp
