"""Concurrency limits per model and per sandbox backend hold however many workers there are; a worker
starts its next episode without waiting for the driver to record the last one."""

from __future__ import annotations

import itertools
import time
from pathlib import Path

import pytest
from hydra_config import compose_config
from interval_agent import IntervalAgent, max_overlap
from tool_factory import make_tool_task

from res_repro.env.formats.tool_api import load_tool_task
from res_repro.errors import UserInputError
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.runner import EpisodeRequest, evaluate
from res_repro.evaluation.scheduling import ConcurrencyLimits
from res_repro.evaluation.store import EpisodeStore
from res_repro.pipelines.lineages import scaling_threads

WORKERS, LIMIT, EPISODES = 4, 2, 8


def run_slow(tmp_path: Path, limits: ConcurrencyLimits, agent: str = "slow") -> int:
    """Run EPISODES waiting episodes on WORKERS threads; return how many ran at once at most."""
    log_dir = tmp_path / "intervals"
    log_dir.mkdir()
    task = load_tool_task(make_tool_task(tmp_path / "task"))
    requests = [EpisodeRequest(task, agent, environment=f"copy-{i}") for i in range(EPISODES)]
    records = evaluate(
        requests,
        agents={agent: IntervalAgent(agent, log_dir, seconds=0.3)},
        backend="local",
        store=EpisodeStore(tmp_path / "store"),
        workers=WORKERS,
        show_progress=False,
        limits=limits,
    )
    assert [r.stop_reason for r in records] == ["answered"] * EPISODES
    return max_overlap(log_dir)


def test_without_limits_every_worker_is_busy(tmp_path: Path) -> None:
    assert run_slow(tmp_path, ConcurrencyLimits()) == WORKERS


def test_a_models_limit_holds_with_more_workers(tmp_path: Path) -> None:
    limits = ConcurrencyLimits.from_settings({"slow": LIMIT}, {})
    assert run_slow(tmp_path, limits) == LIMIT


def test_a_sandbox_backends_limit_holds_with_more_workers(tmp_path: Path) -> None:
    limits = ConcurrencyLimits.from_settings({}, {"local": LIMIT})
    assert run_slow(tmp_path, limits) == LIMIT


def test_a_limit_on_another_model_does_not_slow_this_one(tmp_path: Path) -> None:
    limits = ConcurrencyLimits.from_settings({"other": 1}, {"docker": 1})
    assert run_slow(tmp_path, limits) == WORKERS


class SlowStore(EpisodeStore):
    """A store whose every write takes ``seconds`` (a slow disk, a network filesystem): less than an
    episode, so one queued job per worker covers it."""

    seconds = 0.5

    def put(self, record: EpisodeRecord) -> None:
        """Wait, then store ``record``."""
        time.sleep(self.seconds)
        super().put(record)


@pytest.mark.slow
def test_a_worker_does_not_wait_for_the_driver_to_record_its_last_episode(tmp_path: Path) -> None:
    log_dir = tmp_path / "intervals"
    log_dir.mkdir()
    task = load_tool_task(make_tool_task(tmp_path / "task"))
    requests = [EpisodeRequest(task, "slow", environment=f"copy-{i}") for i in range(3)]
    evaluate(
        requests,
        agents={"slow": IntervalAgent("slow", log_dir, seconds=0.7)},
        backend="local",
        store=SlowStore(tmp_path / "store"),
        workers=1,
        show_progress=False,
    )
    intervals = sorted(tuple(map(float, p.read_text().split())) for p in log_dir.glob("*.txt"))
    gaps = [start - end for (_, end), (start, _) in itertools.pairwise(intervals)]
    assert len(gaps) == 2 and max(gaps) < SlowStore.seconds / 2, gaps


@pytest.mark.parametrize("cap", [0, -1, 1.5, "2", True])
def test_a_bad_limit_names_its_field(cap: object) -> None:
    with pytest.raises(UserInputError, match=r"^models\.gpt\.max_concurrency: expected a positive integer"):
        ConcurrencyLimits.from_settings({"gpt": cap}, {})  # type: ignore[dict-item]
    with pytest.raises(UserInputError, match=r"^sandbox\.max_concurrency: expected a positive integer"):
        ConcurrencyLimits.from_settings({}, {"local": cap})  # type: ignore[dict-item]


def test_scaling_threads_keep_the_sandbox_and_target_model_caps() -> None:
    assert scaling_threads(compose_config("workers=8")) == 8
    assert scaling_threads(compose_config("workers=8", "sandbox.max_concurrency=3")) == 3
    target = ("models=api", "scaling.target=gpt_5_6_sol", "workers=8")
    assert scaling_threads(compose_config(*target, "models.gpt_5_6_sol.max_concurrency=2")) == 2
    # a cap on a model that scaling does not call leaves the threads alone
    assert scaling_threads(compose_config(*target, "models.claude_opus_5.max_concurrency=1")) == 8
