"""The Ray executor: each episode is a Ray task on an existing cluster, or on a local instance it starts.

Jobs and scripted agents travel pickled (a few kB and under 100 bytes; tasks leave their built tool
specs behind); model agents travel as
:class:`~res_repro.evaluation.jobs.AgentRecipe` and are built in the worker, which reads the API key from
its own environment (export it before ``ray start`` on every node). Task folders, the response cache and
the episode store's folder are read by path, so on a multi-node cluster they must be on a filesystem that
every node mounts at the same path; records are stored by the driver as each task finishes.

A local instance keeps its sessions and logs inside a private (0700) scratch folder, removed at close, and
gets ``runtime_env.env_vars`` (where a key may be passed) through its environment rather than through
Ray's runtime environment, which Ray writes to its logs.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from res_repro.agents.base import Agent
from res_repro.errors import UserInputError
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.executor_base import Executor
from res_repro.evaluation.jobs import AgentRecipe, EpisodeJob, run_job
from res_repro.sandbox.owner import owned_tempdir

RAY_MISSING = "executor: ray is not installed; pip install -e '.[ray]'"
RAY_RESOURCES = ("CPU", "GPU", "memory", "object_store_memory")  # Ray's own: not custom resources
CANCEL_GRACE_S = 15.0  # how long cancelled tasks get to close their episodes before their workers die


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UserInputError(RAY_MISSING) from None
    return ray


@contextmanager
def environment(variables: Mapping[str, str]) -> Iterator[None]:
    """This process's environment with ``variables`` set while the block runs (what it starts inherits
    them), restored afterwards."""
    saved = {name: os.environ.get(name) for name in variables}
    os.environ.update(variables)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def custom_resources(resources: Mapping[str, Any] | None) -> dict[str, float]:
    """``executor.task_resources`` checked: custom resource names (not Ray's own) with positive amounts."""
    checked: dict[str, float] = {}
    for name, amount in (resources or {}).items():
        number = not isinstance(amount, bool) and isinstance(amount, int | float)
        if str(name) in RAY_RESOURCES or not number or amount <= 0:
            raise UserInputError(
                "executor.task_resources: expected custom resource names (not "
                f"{', '.join(RAY_RESOURCES)}) with positive amounts, got {name}: {amount!r}"
            )
        checked[str(name)] = float(amount)
    return checked


def fetched(ref: Any) -> Any:
    """The value of a finished task; bad input the task met (an API key missing on its node, say) is
    raised here as the one-line error it is, not as Ray's report of the worker's traceback."""
    ray = _ray()
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        if isinstance(exc.cause, UserInputError):
            raise UserInputError(f"{exc.cause} (on a Ray worker)") from None
        raise


def run_in_worker(job: EpisodeJob, agent: Agent | AgentRecipe) -> EpisodeRecord:
    """The body of the Ray task: build the agent if it came as a recipe, then run the episode."""
    task_dir = job.request.task.path
    if not task_dir.is_dir():
        raise FileNotFoundError(
            f"task folder {task_dir} is not on this Ray node; mount it (and paths.cache_dir) at the same "
            "path on every node"
        )
    return run_job(job, agent.build() if isinstance(agent, AgentRecipe) else agent)


class RayExecutor(Executor):
    """At most ``workers`` Ray tasks in flight, each reserving ``task_cpus`` CPUs of the cluster and the
    custom ``task_resources`` (e.g. ``{docker: 1}`` for the nodes whose ``ray start --resources`` offer it).

    ``address``: ``"auto"`` (the cluster this machine belongs to), ``"ray://host:10001"`` (Ray Client), or
    None to start a local instance with ``num_cpus`` CPUs. If Ray is already initialised in this process
    that instance is used, and left running at the end.
    """

    def __init__(
        self,
        *,
        workers: int,
        address: str | None = None,
        num_cpus: int | None = None,
        task_cpus: float = 1.0,
        task_resources: Mapping[str, Any] | None = None,
        runtime_env: Mapping[str, Any] | None = None,
        recipes: Mapping[str, AgentRecipe] | None = None,
    ) -> None:
        if task_cpus <= 0:
            raise UserInputError(f"executor.task_cpus: expected a positive number, got {task_cpus!r}")
        if address is not None and num_cpus is not None:
            raise UserInputError("executor.num_cpus: only for a local instance (executor.address=null)")
        self.slots = max(1, workers)
        self.address = address
        self.num_cpus = num_cpus
        self.task_cpus = task_cpus
        self.task_resources = custom_resources(task_resources)
        self.runtime_env = dict(runtime_env) if runtime_env else None
        self.recipes = dict(recipes or {})
        self._owns_instance = False
        self.temp_dir: Path | None = None  # a local instance's sessions and logs
        self._remote: Any = None
        self._agents: dict[str, Any] = {}
        self._in_flight: set[Any] = set()

    @classmethod
    def from_settings(
        cls, settings: Mapping[str, Any], *, workers: int, recipes: Mapping[str, AgentRecipe]
    ) -> RayExecutor:
        """The executor from the ``executor`` config group."""
        return cls(
            workers=workers,
            address=settings["address"],
            num_cpus=settings["num_cpus"],
            task_cpus=float(settings["task_cpus"]),
            task_resources=settings["task_resources"],
            runtime_env=settings["runtime_env"],
            recipes=recipes,
        )

    def _shippable(self, ray: Any, name: str, agent: Agent) -> Agent | AgentRecipe:
        try:
            ray.cloudpickle.dumps(agent)
        except (TypeError, AttributeError, ValueError):
            if name not in self.recipes:
                raise UserInputError(
                    f"agents: {name!r} does not pickle and has no recipe, so it cannot run on Ray workers"
                ) from None
            return self.recipes[name]
        return agent

    def start(self, agents: Mapping[str, Agent]) -> RayExecutor:
        """Connect to (or start) Ray and put every agent, or its recipe, in the object store once."""
        ray = _ray()
        if not ray.is_initialized():
            options: dict[str, Any] = {"include_dashboard": False, "logging_level": logging.WARNING}
            runtime_env = dict(self.runtime_env or {})
            inherited: dict[str, str] = {}
            if self.address is None:
                self.temp_dir = owned_tempdir("ray")
                # Ray opens its own folder to everyone (0777): it goes inside the private one
                options.update(num_cpus=self.num_cpus, _temp_dir=str(self.temp_dir / "ray"))
                inherited = {str(k): str(v) for k, v in (runtime_env.pop("env_vars", None) or {}).items()}
            with environment(inherited):
                ray.init(address=self.address, runtime_env=runtime_env or None, **options)
            self._owns_instance = True
        self._remote = self.remote(run_in_worker)
        self._agents = {name: self.put(self._shippable(ray, name, agent)) for name, agent in agents.items()}
        return self

    def put(self, value: Any) -> Any:
        """A ref to ``value`` in the object store, which the tasks given it fetch instead of a copy each."""
        return _ray().put(value)

    def remote(self, function: Callable[..., Any], **options: Any) -> Any:
        """``function`` as a Ray remote function with Ray's task ``options`` (``max_retries``, say), whose
        every task reserves what this executor's tasks do (call :meth:`start` first)."""
        reserved = {"num_cpus": self.task_cpus, "resources": self.task_resources}
        return _ray().remote(**reserved, **options)(function)

    def submit(self, job: EpisodeJob) -> Any:
        """Submit the job as a Ray task; the handle is its object ref."""
        ref = self._remote.remote(job, self._agents[job.request.agent])
        self._in_flight.add(ref)
        return ref

    def wait(self, handles: list[Any]) -> list[Any]:
        """The refs whose tasks have finished (at least one)."""
        ready, _ = _ray().wait(handles, num_returns=1)
        self._in_flight.difference_update(ready)
        return ready

    def result(self, handle: Any) -> EpisodeRecord:
        """The task's record (raises what the task raised)."""
        return fetched(handle)

    def cancel(self, refs: Sequence[Any]) -> None:
        """End the tasks of ``refs``: each is interrupted, and the worker of one the interrupt missed (a
        task still being scheduled, say) is killed after :data:`CANCEL_GRACE_S`."""
        if not refs:
            return
        ray = _ray()
        for ref in refs:
            # not force: the task gets KeyboardInterrupt, so its episode closes its sandbox (a container
            # or a mount outlives a killed worker)
            ray.cancel(ref, force=False)
        _, missed = ray.wait(list(refs), num_returns=len(refs), timeout=CANCEL_GRACE_S)
        for ref in missed:
            ray.cancel(ref, force=True)

    def close(self) -> None:
        """Cancel tasks still running (a run that stopped early), and shut down the local instance if this
        executor started it."""
        in_flight, self._in_flight = list(self._in_flight), set()
        self.cancel(in_flight)
        if self._owns_instance:
            _ray().shutdown()
            self._owns_instance = False
        if self.temp_dir is not None:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None
