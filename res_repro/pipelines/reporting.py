"""Publishing a result: table files in the run folder, the table on screen, and an MLflow run."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from omegaconf import DictConfig, OmegaConf

from res_repro.config import multirun_dir
from res_repro.errors import RunFailedError
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.pipelines.protocol import protocol_tags, settings_note
from res_repro.reporting.tables import Table
from res_repro.storage import write_jsonl
from res_repro.tracking import (
    Tracker,
    config_hash,
    flatten,
    git_commit,
    redact_files,
    secret_values,
    tracked_run,
)
from res_repro.viewer import resolve_source, write_cached_bundle
from res_repro.viewer.sources import RUN_FILES

if TYPE_CHECKING:  # matplotlib loads only when a pipeline draws
    from matplotlib.figure import Figure


def write_episodes(records: Sequence[EpisodeRecord], path: Path) -> Path:
    """All episode records of a run as JSONL (the trajectories)."""
    return write_jsonl((record.to_dict() for record in records), path)


@contextmanager
def job_run(cfg: DictConfig, tags: Mapping[str, str] | None = None) -> Iterator[Tracker]:
    """The job's MLflow run (see :func:`res_repro.tracking.tracked_run`): recorded from the first call,
    when the job starts, with the resolved config as params and git, config-hash and protocol tags, and
    written to MLflow when the job (or its multirun) ends; a later call while it is open adds ``tags``."""
    resolved = OmegaConf.to_container(cfg, resolve=True)
    run_tags = {
        "git_commit": git_commit(cfg.paths.root_dir),
        "config_hash": config_hash(resolved),
        **protocol_tags(cfg),
        **(tags or {}),
    }
    with tracked_run(
        enabled=cfg.tracking.enabled,
        uri=cfg.tracking.uri,
        experiment=cfg.tracking.experiment,
        run_name=f"{cfg.task_name}-{cfg.benchmark.name}",
        params=resolved,
        tags=run_tags,
        artifact_root=cfg.paths.mlflow_artifacts,
    ) as tracker:
        yield tracker


HYDRA_COPIES = ("config.yaml", "hydra.yaml", "overrides.yaml")  # in the run folder's .hydra


def redact_run_files(cfg: DictConfig) -> None:
    """Under Hydra, :func:`redact_config_copies` of this job's run folder and multirun folder (a config
    composed without Hydra has no copies)."""
    from hydra.core.hydra_config import HydraConfig

    if HydraConfig.initialized():
        redact_config_copies(cfg, Path(cfg.paths.output_dir), multirun_dir())


def redact_config_copies(cfg: DictConfig, run_dir: Path, sweep_dir: Path | None) -> None:
    """Replace the config's secrets (see :func:`res_repro.tracking.secret_values`) in Hydra's copies of
    the config, ``run_dir``'s ``.hydra`` files and a multirun's ``multirun.yaml``, and make them readable
    by their owner only."""
    secrets = secret_values(flatten(OmegaConf.to_container(cfg, resolve=True)))  # type: ignore[arg-type]
    paths = [run_dir / ".hydra" / name for name in HYDRA_COPIES]
    redact_files([*paths, sweep_dir / "multirun.yaml"] if sweep_dir else paths, secrets)


def publish(
    cfg: DictConfig,
    table: Table,
    name: str,
    metrics: Mapping[str, float],
    extra: Sequence[Path] = (),
    figures: Mapping[str, Figure] | None = None,
    per_benchmark: bool = True,
) -> list[Path]:
    """Write ``table`` (Markdown, CSV, LaTeX; its notes end with :func:`settings_note`) and figures (PNG,
    PDF) to the run folder, print the table, and record an MLflow run with all of them; a run with
    episode or lineage records also gets the
    viewer's pages (``view/``, the same as ``res-repro view --bundle``, rendered once per content under
    ``paths.cache_dir/views``). A table of settings rather than of a benchmark's results
    (``per_benchmark=False``) is saved without the benchmark in its name."""
    out = Path(cfg.paths.output_dir)
    table.notes.append(settings_note(cfg))
    figures = dict(figures or {})
    if figures:  # a pipeline that drew figures has loaded matplotlib already
        from res_repro.reporting.figures import save as save_figure
    artifacts = [*table.write(out, name), *extra]
    if cfg.save_results:
        results = Path(cfg.paths.results_dir)
        table.write(results, f"{name}_{cfg.benchmark.name}" if per_benchmark else name)
        for figure_name, figure in figures.items():
            save_figure(figure, results / "figures", figure_name, close=False)
    print(table.to_markdown())
    with job_run(cfg, {"table": name}) as tracker:
        tracker.log_metrics(metrics)
        tracker.log_artifacts(artifacts, folder="results")
        for path in artifacts:
            if path.name == "episodes.jsonl":
                tracker.log_traces(path, cfg.tracking.traces)
        for figure_name, figure in figures.items():
            saved = save_figure(figure, out / "figures", figure_name)
            tracker.log_artifacts([p for p in saved if p.suffix == ".png"], folder="figures")
            artifacts += saved
        if any(path.name in RUN_FILES for path in artifacts):  # the run has records: a view of them
            cache_dir = Path(cfg.paths.cache_dir)
            view = write_cached_bundle(
                resolve_source(out, cache_dir), out / "view", cache_dir / "views"
            ).parent
            tracker.log_folder(view, "view")
        hydra_dir = out / ".hydra"
        if hydra_dir.is_dir():
            tracker.log_artifacts(sorted(hydra_dir.iterdir()), folder=".hydra")
    names = ", ".join(sorted({p.name for p in artifacts} | ({"view/"} if (out / "view").is_dir() else set())))
    print(
        f"wrote to {out}: {names}"
        + (f"; the table and figures also to {cfg.paths.results_dir}" if cfg.save_results else "")
    )
    return artifacts


def _first_line(text: str | None, limit: int = 160) -> str:
    """The first line of an error message, cut to ``limit`` characters."""
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else "no message"
    return line if len(line) <= limit else line[: limit - 3] + "..."


def raise_for_failed_agents(records: Sequence[EpisodeRecord]) -> None:
    """After a run has published its results: end it with one line and a non-zero exit when any episode
    ended in an infrastructure error (after the runner's retries), naming each agent with its count and
    first error; an agent whose every episode failed is said to be so (its rows say so too). The tables
    name the tasks such failures left out; a rerun retries exactly those episodes."""
    counts: dict[str, list[int]] = {}
    first: dict[str, str] = {}
    for record in records:
        count = counts.setdefault(record.agent, [0, 0])
        count[1] += 1
        if record.infrastructure_failure:
            count[0] += 1
            first.setdefault(record.agent, f"{record.stop_reason}: {_first_line(record.error)}")
    failed = {agent: count for agent, count in counts.items() if count[0]}
    if not failed:
        return
    raise RunFailedError(
        "; ".join(
            f"{agent}: {'all ' if bad == total else ''}{bad}{'' if bad == total else f' of {total}'} "
            f"episodes ended in infrastructure errors ({first[agent]})"
            for agent, (bad, total) in failed.items()
        )
    )
