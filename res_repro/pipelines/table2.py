"""Table 2: fine-tuning on trajectories from original vs RES environments, at equal counts.

Teachers attempt every seed task's original environment and every RES environment of its lineage
(depth >= 1); each condition's trainable trajectories are exported as chat JSONL, downsampled (seeded)
to the same count, and one model per condition is fine-tuned from the same checkpoint with the same seed
and steps. The starting and the fine-tuned checkpoints are evaluated on each seed task's original and
last accepted RES environment, served either by the run itself on loopback (``sft.evaluation.local``,
the offline default: the tiny model through the checkpoint server) or by an OpenAI-compatible server a
``models`` entry names (vLLM on a GPU machine); a checkpoint served by neither says "not run". The
paper's figures sit in their own "paper" column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from omegaconf import DictConfig

from res_repro.agents import SCRIPTED_AGENTS, Agent
from res_repro.errors import UserInputError
from res_repro.evaluation.episode import EpisodeRecord
from res_repro.evaluation.metrics import MetricSettings, success_description
from res_repro.evaluation.runner import EpisodeRequest
from res_repro.evaluation.summary import metrics_for
from res_repro.pipelines.cells import failed_text, interval_text, metric_settings, pct, split_failed
from res_repro.pipelines.lineage_views import lineage_notes
from res_repro.pipelines.lineages import (
    build_lineages,
    configured_agents,
    configured_tasks,
    plain,
    run_requests,
)
from res_repro.pipelines.paper import paper_rows
from res_repro.pipelines.reporting import publish, raise_for_failed_agents, write_episodes
from res_repro.pipelines.served import served_checkpoints
from res_repro.reporting.tables import Table
from res_repro.res.scaling import LineageResult
from res_repro.sft.collect import (
    ORIGINAL,
    RES,
    CollectionSummary,
    balance,
    collection_requests,
    split_by_condition,
    summarise,
    trainable_pools,
)
from res_repro.sft.export import export_chat_jsonl
from res_repro.sft.start import checked_start

if TYPE_CHECKING:  # importing the recipe loads torch; Table 2 imports it only when it runs
    from res_repro.sft.train import TrainResult

BASE, WITHOUT_RES, WITH_RES = "base", "sft_without_res", "sft_with_res"
ENVIRONMENTS = (ORIGINAL, RES)  # where each checkpoint is evaluated: the seed task's and its last RES
CONDITIONS = (BASE, WITHOUT_RES, WITH_RES)
TRAINED_ON = {WITHOUT_RES: ORIGINAL, WITH_RES: RES}  # fine-tuned condition -> trajectory condition
LABELS = {BASE: "base", WITHOUT_RES: "SFT without RES", WITH_RES: "SFT with RES"}


def sft_recipe() -> ModuleType:
    """The training recipe, imported only when Table 2 runs (torch is slow to import and optional)."""
    try:
        from res_repro.sft import recipe
    except ImportError as exc:
        raise UserInputError(
            f"task_name: table2 needs the sft extra (pip install -e '.[sft]'); missing {exc.name!r}"
        ) from None
    return recipe


def checked_teachers(cfg: DictConfig) -> dict[str, Agent]:
    """Build the teachers, refusing an empty list and scripted teachers unless explicitly included."""
    collection = cfg.sft.collection
    if not collection.teachers:
        raise UserInputError("sft.collection.teachers: expected at least one agent name or models key")
    known = sorted({*SCRIPTED_AGENTS, *cfg.models})
    for name in collection.teachers:
        if name not in known:
            raise UserInputError(f"sft.collection.teachers: unknown agent {name!r}; expected one of {known}")
    teachers = configured_agents(cfg, collection.teachers)
    scripted = [name for name, agent in teachers.items() if agent.scripted]
    if scripted and not collection.include_scripted:
        raise UserInputError(
            f"sft.collection.include_scripted: teachers {scripted} are scripted; expected true to train on "
            "their trajectories (labelled scripted), or model teachers"
        )
    return teachers


def evaluation_keys(cfg: DictConfig) -> dict[str, str]:
    """Condition -> key of ``models`` serving its checkpoint, for the conditions given one."""
    keys = {condition: cfg.sft.evaluation[condition] for condition in CONDITIONS}
    for condition, key in keys.items():
        if key is not None and cfg.sft.evaluation.local:
            raise UserInputError(
                f"sft.evaluation.{condition}: expected null with sft.evaluation.local=true (the run serves "
                f"its own checkpoints), got {key!r}"
            )
        if key is not None and key not in cfg.models:
            raise UserInputError(
                f"sft.evaluation.{condition}: expected a key of models {sorted(cfg.models)}, got {key!r}"
            )
    return {condition: key for condition, key in keys.items() if key is not None}


def evaluated_as(cfg: DictConfig, summaries: Mapping[str, CollectionSummary]) -> str:
    """How the evaluation cells were produced, in words (``tiny model, scripted teachers`` offline)."""
    model = "tiny model" if cfg.sft.init == "tiny" else str(cfg.sft.name)
    scripted = any(is_scripted for s in summaries.values() for is_scripted in s.scripted.values())
    return f"{model}, {'scripted' if scripted else 'model'} teachers"


def collect(
    cfg: DictConfig, lineages: Sequence[LineageResult], teachers: Mapping[str, Agent]
) -> tuple[dict[str, list[EpisodeRecord]], list[EpisodeRecord]]:
    """Every teacher's episodes per trajectory condition, and all of them in run order."""
    requests = collection_requests(lineages, list(teachers))
    flat = run_requests(cfg, [r for condition in requests.values() for r in condition], teachers)
    return split_by_condition(flat, requests), flat


def export_conditions(
    cfg: DictConfig, selected: Mapping[str, Sequence[EpisodeRecord]], out: Path
) -> dict[str, Path]:
    """Each fine-tuned condition's training set as chat JSONL in the run folder."""
    collection = cfg.sft.collection
    files = {}
    for condition, source in TRAINED_ON.items():
        path = out / f"trajectories_{source}.jsonl"
        export_chat_jsonl(
            selected[source],
            path,
            only_passed=collection.only_passed,
            include_scripted=collection.include_scripted,
            settings=metric_settings(cfg),
        )
        files[condition] = path
    return files


Evaluation = dict[str, dict[str, list[EpisodeRecord]]]  # condition -> environment -> records


def evaluate_checkpoints(
    cfg: DictConfig, lineages: Sequence[LineageResult], keys: Mapping[str, str], agents: Mapping[str, Agent]
) -> tuple[Evaluation, list[EpisodeRecord]]:
    """One attempt per seed task on its original and on its last accepted RES environment for each
    served checkpoint (condition -> key of ``models``)."""
    tasks = {ORIGINAL: [lin.nodes[0].task for lin in lineages], RES: [lin.last.task for lin in lineages]}
    cells = [(condition, env) for condition in keys for env in ENVIRONMENTS]
    requests = [
        EpisodeRequest(task, keys[condition], environment=env)
        for condition, env in cells
        for task in tasks[env]
    ]
    flat = run_requests(cfg, requests, agents, lineages)
    per_condition: Evaluation = {condition: {} for condition in keys}
    for i, (condition, env) in enumerate(cells):
        chunk = flat[i * len(lineages) : (i + 1) * len(lineages)]
        per_condition[condition][env] = [r for r in chunk if not r.infrastructure_failure]
    return per_condition, flat


def checkpoint_failures(
    keys: Mapping[str, str], agents: Mapping[str, Agent], evaluated: Sequence[EpisodeRecord]
) -> dict[str, int]:
    """Condition -> infrastructure errors, for the conditions whose served checkpoint ran no episode."""
    failed = split_failed(agents, evaluated)[1]
    return {condition: failed.total(key) for condition, key in keys.items() if key in failed.agents}


def checkpoint_dirs(cfg: DictConfig, training: Mapping[str, TrainResult], out: Path) -> dict[str, Path]:
    """Condition -> the checkpoint it evaluates: the shared start for the base row (the recipe builds the
    tiny one under ``out/init``), the trained ones for the others."""
    start = checked_start(plain(cfg.sft)) or out / "init"
    return {BASE: start, **{condition: result.checkpoint for condition, result in training.items()}}


def evaluate_locally(
    cfg: DictConfig, lineages: Sequence[LineageResult], checkpoints: Mapping[str, Path]
) -> tuple[Evaluation, list[EpisodeRecord], dict[str, int]]:
    """Serve the run's checkpoints on loopback and evaluate them through the openai provider."""
    labels = {condition: f"{cfg.sft.name} {LABELS[condition]}" for condition in checkpoints}
    max_new_tokens = cfg.sft.evaluation.max_new_tokens
    with served_checkpoints(cfg, checkpoints, labels, max_new_tokens=max_new_tokens) as keys:
        agents = configured_agents(cfg, list(keys.values()))
        evaluation, evaluated = evaluate_checkpoints(cfg, lineages, keys, agents)
        return evaluation, evaluated, checkpoint_failures(keys, agents, evaluated)


def data_cells(summary: CollectionSummary | None, result: TrainResult | None) -> list[object]:
    """The training-set and training cells of a row (blank for the base model)."""
    if summary is None or result is None:
        return ["", "", "", "", "", "", ""]
    first, last = (f"{result.losses[i]:.3f}" if result.losses else "" for i in (0, -1))
    return [
        f"{summary.count} ({summary.pool})",
        summary.sources,
        f"{summary.mean_turns:.1f}",
        f"{summary.mean_tool_calls:.1f}",
        result.steps,
        first,
        last,
    ]


def data_metrics(condition: str, summary: CollectionSummary, result: TrainResult) -> dict[str, float]:
    """The MLflow metrics of a fine-tuned condition's data and training."""
    logged = {
        f"{condition}.trajectories": summary.count,
        f"{condition}.pool": summary.pool,
        f"{condition}.mean_turns": summary.mean_turns,
        f"{condition}.mean_tool_calls": summary.mean_tool_calls,
        f"{condition}.train_steps": result.steps,
    }
    if result.losses:
        logged |= {f"{condition}.loss_first": result.losses[0], f"{condition}.loss_last": result.losses[-1]}
    return logged


def build_table2(
    *,
    model: str,
    summaries: Mapping[str, CollectionSummary],
    training: Mapping[str, TrainResult],
    evaluation: Mapping[str, Mapping[str, Sequence[EpisodeRecord]]],
    benchmark: str,
    settings: MetricSettings,
    evaluated_as: str,
    failures: Mapping[str, int] | None = None,
) -> tuple[Table, dict[str, float]]:
    """Rows per condition (data, training, evaluation on the original and the RES environments) beside
    the paper, then the paper's other rows; ``evaluated_as`` labels the rows whose cells were computed,
    ``failures`` counts the infrastructure errors of a condition whose served checkpoint ran no episode
    (its evaluation cells say so instead of "not run")."""
    metrics, prefix = metrics_for(benchmark)
    columns = [
        "model",
        "condition",
        "trajectories (pool)",
        "teachers",
        "mean turns",
        "mean tool calls",
        "train steps",
        "loss first",
        "loss last",
    ]
    ci = f"{settings.confidence:.0%} CI"
    for metric in metrics:
        columns += [f"{metric.label} (%)", ci, "paper", f"{metric.label} on RES (%)", ci]
    columns.append("evaluation")
    table = Table(title=f"Table 2 ({benchmark}): SFT on original vs RES trajectories", columns=columns)
    paper = {(row["model"], row["condition"]): row for row in paper_rows("table2")}
    logged: dict[str, float] = {}
    for condition in CONDITIONS:
        summary, result = summaries.get(TRAINED_ON.get(condition, "")), training.get(condition)
        cells = [model, LABELS[condition], *data_cells(summary, result)]
        if summary is not None and result is not None:
            logged |= data_metrics(condition, summary, result)
        reported = paper.get((model, condition), {})
        evaluated = evaluation.get(condition, {})
        for metric in metrics:
            for env in ENVIRONMENTS:
                records = evaluated.get(env)
                if records:
                    estimate = metric.estimate(records, settings)
                    cells += [pct(estimate.value), interval_text(estimate)]
                    where = condition if env == ORIGINAL else f"{condition}.{RES}"
                    logged.update(estimate.as_metrics(f"{where}.{metric.paper_suffix}"))
                else:
                    errors = (failures or {}).get(condition)
                    cells += [failed_text(errors) if errors else "not run", ""]
                if env == ORIGINAL:
                    cells.append(reported.get(f"{prefix}_{metric.paper_suffix}", "") if prefix else "")
        cells.append(evaluated_as if evaluated else "")
        table.add_row(*cells)
    for (paper_model, condition), row in paper.items():
        if paper_model == model:
            continue
        cells = [paper_model, LABELS[condition], "", "", "", "", "", "", ""]
        for metric in metrics:
            paper_value = row.get(f"{prefix}_{metric.paper_suffix}", "") if prefix else ""
            cells += ["not run", "", paper_value, "not run", ""]
        table.add_row(*cells, "")
    return table, logged


def table2_notes(
    cfg: DictConfig,
    summaries: Mapping[str, CollectionSummary],
    training: Mapping[str, TrainResult],
    evaluated: Sequence[str],
) -> list[str]:
    """What the rows mean: where the data came from, the recipe, and how to fill the 'not run' cells."""
    sft, train = cfg.sft, cfg.sft.train
    count = next(iter(summaries.values())).count
    scripted = sorted({a for s in summaries.values() for a, is_s in s.scripted.items() if is_s})
    steps = "/".join(str(n) for n in sorted({result.steps for result in training.values()}))
    start = "a tiny randomly initialised Qwen2-style model" if sft.init == "tiny" else f"{sft.model_path}"
    rule = success_description(cfg.benchmark.name, metric_settings(cfg))
    passed = f"passed ({rule}) " if sft.collection.only_passed else ""
    notes = [
        f"Trajectories: the teachers ({', '.join(sft.collection.teachers)}) attempt every seed task's "
        "original environment (for SFT without RES) and every RES environment of its lineage at depth >= 1 "
        "(for SFT with RES); "
        f"{passed}trajectories (pool in brackets) are downsampled "
        f"with seed {cfg.seed} to {count} per condition. The paper uses 8428 per condition.",
        f"Both models start from {start} with seed {cfg.seed}, {count} samples and {steps} optimizer steps: "
        f"peak LR {train.learning_rate:g}, {train.epochs:g} epoch(s), effective batch "
        f"{train.effective_batch_size}, {train.lr_scheduler} "
        f"schedule with {train.warmup_ratio:.0%} warmup, at most {train.max_length} tokens per sequence, "
        f"{train.optimizer}. Checkpoints are in the run folder under checkpoints/ (Table A3 lists every "
        "setting).",
        "Truncation: "
        + "; ".join(result.truncation.line(condition) for condition, result in training.items())
        + " (truncation.json beside each checkpoint).",
        "The 'paper' column holds the RES paper's Table 2 figures (Qwen3.5 models evaluated on "
        "Claw-Eval-Live and Workspace); they are not results of this harness.",
    ]
    if scripted:
        notes.insert(
            1,
            f"Scripted teachers ({', '.join(scripted)}) are programs following the seed task's reference "
            "plan (varied only by the episode seed's order of alternatives), not models; their trajectories "
            "are labelled scripted in the metadata side file beside each JSONL.",
        )
    if sft.init == "tiny":
        notes.append(
            "The tiny model has random weights and a byte-level BPE tokenizer trained on these trajectories; "
            "its losses show that the recipe runs end to end and say nothing about the paper's claim."
        )
    if evaluated:
        served = (
            "served by the harness's loopback checkpoint server (greedy decoding, at most "
            f"{sft.evaluation.max_new_tokens} new tokens a reply, refused beyond the model's context length) "
            "and reached through the openai provider like any OpenAI-compatible endpoint"
            if sft.evaluation.local
            else "served by the OpenAI-compatible endpoints of sft.evaluation"
        )
        notes.append(
            f"Evaluation ({', '.join(LABELS[c] for c in evaluated)}): each checkpoint, {served}, makes one "
            f"attempt per seed task of {cfg.benchmark.name} on its original and on its last accepted RES "
            f"environment, turn limit {cfg.agent_loop.max_turns}; these tasks also produced the training "
            "trajectories, unlike the paper's held-out benchmarks."
        )
    if sft.init == "tiny" and evaluated:
        notes.append(
            "The rows labelled 'tiny model, scripted teachers' come from real episodes of the tiny model; it "
            "mostly fails the tasks, which says nothing about the paper's models."
        )
    if len(evaluated) < len(CONDITIONS):
        notes.append(
            "'not run' evaluations need the checkpoint served by an OpenAI-compatible server (for example "
            "`vllm serve <run folder>/checkpoints/sft_with_res`; README, 'Evaluating fine-tuned "
            "checkpoints'), a models entry whose base_url points at it (see conf/models/local_qwen.yaml), "
            "and sft.evaluation.<condition>=<that key>; the base row serves the starting checkpoint."
        )
    return notes


def run_table2(cfg: DictConfig) -> Table:
    """Collect, balance and export trajectories, fine-tune per condition, evaluate what is served, report."""
    checked_start(plain(cfg.sft))
    teachers = checked_teachers(cfg)
    keys = evaluation_keys(cfg)
    recipe = sft_recipe()  # after the cheap checks: importing torch takes seconds
    evaluators = configured_agents(cfg, sorted(set(keys.values())))  # before any work: a missing key
    lineages = build_lineages(cfg, configured_tasks(cfg))
    by_condition, episodes = collect(cfg, lineages, teachers)
    collection = cfg.sft.collection
    pools = trainable_pools(
        by_condition,
        only_passed=collection.only_passed,
        include_scripted=collection.include_scripted,
        settings=metric_settings(cfg),
    )
    selected = balance(pools, collection.per_condition, cfg.seed)
    summaries = {condition: summarise(selected[condition], len(pools[condition])) for condition in pools}
    out = Path(cfg.paths.output_dir)
    files = export_conditions(cfg, selected, out)
    training = recipe.fine_tune(
        plain(cfg.sft), files, out / "checkpoints", seed=cfg.seed, show_progress=cfg.show_progress
    )
    if cfg.sft.evaluation.local:
        checkpoints = checkpoint_dirs(cfg, training, out / "checkpoints")
        evaluation, evaluated, failures = evaluate_locally(cfg, lineages, checkpoints)
    else:
        evaluation, evaluated = evaluate_checkpoints(cfg, lineages, keys, evaluators) if keys else ({}, [])
        failures = checkpoint_failures(keys, evaluators, evaluated)
    table, metrics = build_table2(
        model=cfg.sft.name,
        summaries=summaries,
        training=training,
        evaluation=evaluation,
        benchmark=cfg.benchmark.name,
        settings=metric_settings(cfg),
        evaluated_as=evaluated_as(cfg, summaries),
        failures=failures,
    )
    table.notes = table2_notes(cfg, summaries, training, [c for c in CONDITIONS if c in evaluation])
    table.notes += lineage_notes(lineages)
    logs = [file for result in training.values() for file in result.files]
    extra = [*files.values(), *logs, write_episodes([*episodes, *evaluated], out / "episodes.jsonl")]
    publish(cfg, table, "table2", metrics, extra=extra)
    raise_for_failed_agents(evaluated)
    return table
