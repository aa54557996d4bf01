"""Executors: episodes on a local Ray instance give the local executor's records, keep the concurrency
limits, store each record as it arrives, and rebuild model agents in the workers from their recipes.

One Ray instance serves every test of the module that runs episodes on Ray; starting it takes seconds, so
those tests are marked slow. Ray is part of `make install`, so under CI=true these tests must run, not
skip.
"""

from __future__ import annotations

import logging
import os
import pickle
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import hydra_config
import pytest
from fake_providers import OPENAI, Call, FakeModelServer, Reply
from interval_agent import IntervalAgent, RaisingAgent, max_overlap
from tool_factory import make_tool_task

from res_repro.agents import build_agents
from res_repro.env.formats.tool_api import load_tool_task
from res_repro.errors import UserInputError
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.executors import EXECUTORS, LocalExecutor, make_executor
from res_repro.evaluation.jobs import agent_recipes
from res_repro.evaluation.ray_executor import RAY_MISSING, RayExecutor
from res_repro.evaluation.runner import EpisodeRequest, evaluate
from res_repro.evaluation.scheduling import ConcurrencyLimits
from res_repro.evaluation.store import EpisodeStore
from res_repro.pipelines.lineages import (
    SEED_SCALING,
    build_lineages,
    configured_agents,
    configured_tasks,
    run_requests,
)

try:
    import ray
except ImportError:
    if os.environ.get("CI") == "true":
        raise  # CI installs the ray extra, so the Ray tests must run there
    pytest.skip("ray is not installed; pip install -e '.[ray]'", allow_module_level=True)

TESTS = Path(__file__).resolve().parent
AGENTS = ["oracle", "nop", "explorer-expert"]
SUITES = ("terminal_bundled", "claw_bundled")
RAY_CPUS = 2


@pytest.fixture(scope="module")
def ray_instance() -> Iterator[None]:
    """One local Ray instance for the tests that ask for it; its workers import the test helpers."""
    ray.init(
        num_cpus=RAY_CPUS,
        include_dashboard=False,
        logging_level=logging.WARNING,
        runtime_env={"env_vars": {"PYTHONPATH": str(TESTS)}},
    )
    yield
    ray.shutdown()


def compose_config(root: Path, *overrides: str) -> Any:
    """The project config for a run under ``root``."""
    return hydra_config.compose_config("show_progress=false", *overrides, root=root, output_dir=root / "out")


def run_suites(root: Path, *overrides: str) -> list[EpisodeRecord]:
    """Scripted agents on the first 3 tasks of the terminal and Claw-style suites, through run_requests."""
    records: list[EpisodeRecord] = []
    for suite in SUITES:
        cfg = compose_config(root, f"benchmark={suite}", "benchmark.limit=3", "workers=2", *overrides)
        agents = configured_agents(cfg, AGENTS)
        requests = [EpisodeRequest(task, name) for task in configured_tasks(cfg) for name in AGENTS]
        records += run_requests(cfg, requests, agents)
    return records


def outcome(record: EpisodeRecord) -> tuple[Any, ...]:
    """What an executor must not change about an episode."""
    grade = record.grade.to_dict() if record.grade else None
    return (
        record.episode_id,
        record.task_id,
        record.agent,
        record.stop_reason,
        record.turns,
        record.tool_calls,
        record.answer,
        grade,
    )


@pytest.mark.slow
@pytest.mark.usefixtures("ray_instance")
def test_ray_executor_records_equal_the_local_executors(tmp_path: Path) -> None:
    local = run_suites(tmp_path / "local")
    on_ray = run_suites(tmp_path / "ray", "executor=ray")

    assert len(local) == len(SUITES) * 3 * len(AGENTS)
    assert [outcome(r) for r in on_ray] == [outcome(r) for r in local]
    scores = {(r.task_id, r.agent): r.score for r in local}
    assert {(r.task_id, r.agent): r.score for r in on_ray} == scores
    assert {scores[(task, "oracle")] for task, _ in scores} == {1.0}
    stored = {path.name for path in (tmp_path / "ray" / ".cache" / "episodes").rglob("*.json")}
    assert stored == {f"{r.episode_id}.json" for r in local}


class TimedStore(EpisodeStore):
    """An episode store that notes when each record was written."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.put_times: list[float] = []

    def put(self, record: EpisodeRecord) -> None:
        """Store and note the time."""
        super().put(record)
        self.put_times.append(time.time())


def run_waiting(tmp_path: Path, limits: ConcurrencyLimits) -> tuple[int, TimedStore, Path]:
    """8 waiting episodes on Ray, 4 in flight (the instance's 2 CPUs run 2 at once)."""
    log_dir = tmp_path / "intervals"
    log_dir.mkdir(parents=True)
    task = load_tool_task(make_tool_task(tmp_path / "task"))
    requests = [EpisodeRequest(task, "slow", environment=f"copy-{i}") for i in range(8)]
    store = TimedStore(tmp_path / "store")
    records = evaluate(
        requests,
        agents={"slow": IntervalAgent("slow", log_dir, seconds=0.6)},
        backend="local",
        store=store,
        show_progress=False,
        executor=RayExecutor(workers=4),
        limits=limits,
    )
    assert [r.stop_reason for r in records] == ["answered"] * 8
    return max_overlap(log_dir), store, log_dir


@pytest.mark.slow
@pytest.mark.usefixtures("ray_instance")
def test_ray_keeps_a_models_limit_and_stores_each_record_as_it_arrives(tmp_path: Path) -> None:
    unlimited, _, _ = run_waiting(tmp_path / "free", ConcurrencyLimits())
    assert unlimited == 2  # without the limit 2 do overlap, so the next check can fail

    limited, store, log_dir = run_waiting(
        tmp_path / "limited", ConcurrencyLimits.from_settings({"slow": 1}, {})
    )
    assert limited == 1
    last_end = max(float(path.read_text().split()[1]) for path in log_dir.glob("*.txt"))
    assert min(store.put_times) < last_end  # the first record was stored while others still ran


@pytest.mark.slow
@pytest.mark.usefixtures("ray_instance")
def test_a_failing_episode_stops_the_run_and_cancels_the_tasks_in_flight(tmp_path: Path) -> None:
    log_dir = tmp_path / "intervals"
    log_dir.mkdir()
    task = load_tool_task(make_tool_task(tmp_path / "task"))
    waits = 600.0  # far longer than the test may take: only a cancelled episode ends before it
    agents = {"slow": IntervalAgent("slow", log_dir, seconds=waits), "raising": RaisingAgent()}
    started = time.monotonic()
    with pytest.raises(ray.exceptions.RayTaskError, match="this agent always fails"):
        evaluate(
            [EpisodeRequest(task, "slow"), EpisodeRequest(task, "raising")],
            agents=agents,
            backend="local",
            store=EpisodeStore(tmp_path / "store"),
            show_progress=False,
            executor=RayExecutor(workers=2),
        )
    assert time.monotonic() - started < waits  # it did not wait for the other episode
    # the slow episode was cancelled, not left to finish: its CPU comes back and it logged nothing
    deadline = time.monotonic() + 120
    while ray.available_resources().get("CPU", 0) < RAY_CPUS and time.monotonic() < deadline:
        time.sleep(0.1)
    assert ray.available_resources().get("CPU", 0) == RAY_CPUS
    assert not list(log_dir.iterdir())


SOLVE = (
    Reply(None, (Call("crm_search", {"query": "Acme"}),)),
    Reply(None, (Call("crm_get", {"id": "C1"}),)),
    Reply(
        None,
        (Call("mail_send", {"to": "ops@acme.test", "subject": "Renewal", "body": "Your plan renews."}),),
    ),
    Reply(None, (Call("submit_answer", {"answer": "Emailed ops@acme.test"}),)),
)


def conversation(record: EpisodeRecord) -> list[tuple[Any, ...]]:
    """The messages without the server's call ids (they count requests across runs)."""
    return [
        (m["role"], m.get("content"), [c["function"] for c in m.get("tool_calls", ())])
        for m in record.messages
    ]


def fake_model(base_url: str) -> dict[str, Any]:
    """A model config for an OpenAI-compatible server at ``base_url`` that needs no key."""
    return {"provider": OPENAI, "model": "m", "api_key_env": None, "base_url": base_url, "timeout_s": 30.0}


@pytest.mark.slow
@pytest.mark.usefixtures("ray_instance")
def test_a_model_agent_is_rebuilt_in_the_worker_from_its_recipe(tmp_path: Path) -> None:
    task = load_tool_task(make_tool_task(tmp_path / "task"))
    loop = hydra_config.agent_loop(max_turns=10, time_limit_s=60.0)
    with FakeModelServer(OPENAI) as server:
        models = {"fake": fake_model(server.base_url)}
        agents = build_agents(["fake"], models=models, loop=loop)
        with pytest.raises(TypeError):
            pickle.dumps(agents["fake"])  # SDK clients hold locks: the agent itself cannot travel
        recipes = agent_recipes(agents, models=models, loop=loop, cache_dir=None, seed=0)
        records = []
        for executor in (LocalExecutor(1), RayExecutor(workers=1, recipes=recipes)):
            server.load(SOLVE)
            store = EpisodeStore(tmp_path / type(executor).__name__)
            [record] = evaluate(
                [EpisodeRequest(task, "fake")],
                agents=agents,
                backend="local",
                store=store,
                show_progress=False,
                executor=executor,
            )
            records.append(record)
    local, on_ray = records
    assert on_ray.stop_reason == "answered" and on_ray.turns == 4 and on_ray.score == 1.0
    assert outcome(on_ray) == outcome(local)
    assert conversation(on_ray) == conversation(local)


@pytest.mark.slow
@pytest.mark.usefixtures("ray_instance")
def test_an_agent_that_cannot_travel_needs_a_recipe(tmp_path: Path) -> None:
    task = load_tool_task(make_tool_task(tmp_path / "task"))
    models = {"fake": fake_model("http://127.0.0.1:9")}
    agents = build_agents(
        ["fake"], models=models, loop=hydra_config.agent_loop(max_turns=1, time_limit_s=1.0)
    )
    with pytest.raises(UserInputError, match=r"^agents: 'fake' does not pickle and has no recipe"):
        evaluate(
            [EpisodeRequest(task, "fake")],
            agents=agents,
            backend="local",
            store=EpisodeStore(tmp_path / "store"),
            show_progress=False,
            executor=RayExecutor(workers=1),
        )


def test_executors_are_a_registry_and_a_bad_name_names_the_field() -> None:
    assert sorted(EXECUTORS) == ["local", "ray"]
    assert isinstance(make_executor({"name": "local"}, workers=3), LocalExecutor)
    with pytest.raises(UserInputError, match=r"^executor: unknown executor 'dask'; expected one of"):
        make_executor({"name": "dask"}, workers=1)


def test_seeds_scale_under_the_executors_names_and_a_bad_name_names_the_field(tmp_path: Path) -> None:
    assert sorted(SEED_SCALING) == sorted(EXECUTORS)
    cfg = compose_config(tmp_path, "executor.name=dask")
    with pytest.raises(UserInputError, match=r"^executor: unknown executor 'dask'; expected one of"):
        build_lineages(cfg, [])


def test_task_resources_are_custom_resources_with_positive_amounts() -> None:
    assert RayExecutor(workers=1, task_resources={"docker": 2}).task_resources == {"docker": 2.0}
    for bad in ({"CPU": 1}, {"docker": 0}, {"docker": -1}, {"docker": True}):
        with pytest.raises(UserInputError, match=r"^executor.task_resources: expected custom resource names"):
            RayExecutor(workers=1, task_resources=bad)


def test_the_ray_config_composes_and_rejects_unknown_keys(tmp_path: Path) -> None:
    cfg = compose_config(tmp_path, "executor=ray", "executor.address=auto", "models=api")
    assert cfg.executor.address == "auto" and cfg.executor.task_cpus == 1.0
    assert cfg.executor.task_resources == {}
    docker = compose_config(tmp_path, "executor=ray", "+executor.task_resources.docker=1")
    assert docker.executor.task_resources == {"docker": 1.0}
    assert cfg.models.gpt_5_6_sol.max_concurrency is None and cfg.sandbox.max_concurrency is None
    with pytest.raises(Exception, match="adress"):
        compose_config(tmp_path, "executor=ray", "executor.adress=auto")


def test_without_ray_installed_the_error_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # makes `import ray` fail
    with pytest.raises(UserInputError) as error:
        RayExecutor(workers=1).start({})
    assert str(error.value) == RAY_MISSING == "executor: ray is not installed; pip install -e '.[ray]'"
