"""The process ``accelerate launch`` starts: one fine-tuning run described by a JSON job file.

``python -m res_repro.sft.worker JOB`` reads ``{"init", "data", "out", "train", "seed", "show_progress"}``
and runs :func:`res_repro.sft.train.train_condition`; the main process writes the result beside the
checkpoint, where the launcher reads it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from res_repro.sft.train import train_condition


def main(argv: list[str]) -> None:
    """Run the job named by the single argument."""
    (job_file,) = argv
    job = json.loads(Path(job_file).read_text(encoding="utf-8"))
    train_condition(
        init=Path(job["init"]),
        data=Path(job["data"]),
        out=Path(job["out"]),
        train=job["train"],
        seed=job["seed"],
        show_progress=job["show_progress"],
    )


if __name__ == "__main__":
    main(sys.argv[1:])
