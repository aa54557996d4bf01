"""Start each fine-tuning run through ``accelerate launch``, on a CPU or on GPUs with DeepSpeed ZeRO-3.

The accelerate config file (``sft.launch.accelerate_config``, in ``conf/sft/accelerate/``) says how many
processes and which backend; it runs from its own folder so that the DeepSpeed JSON it names resolves
beside it. Mixed precision comes from ``sft.train.bf16`` alone. The run's result and its truncation
report are read back from the checkpoint folder and the report printed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from res_repro.sft.launch_config import accelerate_settings
from res_repro.sft.train import LOG_FILE, TrainResult

WORKER = "res_repro.sft.worker"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]  # the folder holding this res_repro package
TAIL = 4000  # characters of a failed run's output kept in the error


def launch_command(launch: Mapping[str, Any], train: Mapping[str, Any], job: Path) -> list[str]:
    """The ``accelerate launch`` command line running the worker on ``job``."""
    processes = [] if launch["num_processes"] is None else ["--num_processes", str(launch["num_processes"])]
    return [
        sys.executable,
        "-m",
        "accelerate.commands.launch",
        "--config_file",
        str(Path(launch["accelerate_config"]).resolve()),
        "--mixed_precision",
        "bf16" if train["bf16"] else "no",
        *processes,
        "-m",
        WORKER,
        str(job),
    ]


def worker_env() -> dict[str, str]:
    """The environment with this ``res_repro`` first on the path, so the worker runs the same code."""
    path = os.pathsep.join(p for p in (str(PACKAGE_ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def launch_condition(
    sft: Mapping[str, Any], *, init: Path, data: Path, out: Path, seed: int, show_progress: bool, label: str
) -> TrainResult:
    """Fine-tune ``init`` on ``data`` into ``out`` in processes started by accelerate; print what was cut."""
    accelerate_settings(sft["launch"]["accelerate_config"])
    out.mkdir(parents=True, exist_ok=True)
    job = out.with_name(f"{out.name}.job.json")
    job.write_text(
        json.dumps(
            {
                "init": str(init),
                "data": str(data),
                "out": str(out),
                "train": dict(sft["train"]),
                "seed": seed,
                "show_progress": show_progress,
            }
        ),
        encoding="utf-8",
    )
    command = launch_command(sft["launch"], sft["train"], job)
    done = subprocess.run(
        command,
        cwd=Path(sft["launch"]["accelerate_config"]).resolve().parent,
        env=worker_env(),
        capture_output=not show_progress,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        output = (done.stdout or "") + (done.stderr or "")
        raise RuntimeError(f"fine-tuning {label} failed (exit {done.returncode}):\n{output[-TAIL:]}")
    result = TrainResult.from_dict(json.loads((out / LOG_FILE).read_text(encoding="utf-8")))
    print(f"sft truncation: {result.truncation.line(label)}", flush=True)
    return result
