"""MLflow tracking kept out of the jobs: a job records its run on disk (:mod:`.record`), and only the
process that writes to the store imports MLflow (:mod:`.store`): a multirun's driver at the end of the
sweep (:mod:`.multirun`), a single run when it ends. Runs carry flattened params (secrets replaced),
git and config-hash tags, and the status of their job: FINISHED, or FAILED when the job raised, was
stopped by a signal, or died (SIGKILL: written FAILED by the next run on the same store). A multirun
has a parent run holding the sweep's overrides and a summary table of its children, each named by its
own swept overrides. A rerun whose runs match FINISHED ones already in the store writes nothing.
"""

from res_repro.tracking.multirun import PARENT_RUN_FILE, child_run_name, sweep_overrides
from res_repro.tracking.params import config_hash, flatten, git_commit, redact_files, secret_values
from res_repro.tracking.processes import process_identity
from res_repro.tracking.record import RunRecord, Tracker, pending_dir
from res_repro.tracking.runs import MultirunParent, end_parent_run, tracked_run

__all__ = [
    "PARENT_RUN_FILE",
    "MultirunParent",
    "RunRecord",
    "Tracker",
    "child_run_name",
    "config_hash",
    "end_parent_run",
    "flatten",
    "git_commit",
    "pending_dir",
    "process_identity",
    "redact_files",
    "secret_values",
    "sweep_overrides",
    "tracked_run",
]
