"""A process that runs jobs keeps what lives as long as it out of the cyclic collector's walks: the
modules of the job's pipeline and what is alive when the job starts, and at exit everything left, so that
the interpreter's collections while it shuts down walk nothing."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import atexit, gc, sys
kept = []
atexit.register(lambda: print("FROZEN_AT_EXIT", gc.get_freeze_count() - kept[0]))  # runs last
from res_repro import app
assert "res_repro.pipelines.table1" not in sys.modules
app.freeze_the_job_modules("table1")
app.freeze_at_exit()
kept.append(gc.get_freeze_count())
handlers = atexit._ncallbacks()
app.freeze_the_job_modules("table1")  # a second job in the same process
app.freeze_at_exit()
assert (gc.get_freeze_count(), atexit._ncallbacks()) == (kept[0], handlers)
made_by_the_job = [[i] for i in range(5000)]
print("IMPORTED", "res_repro.pipelines.table1" in sys.modules)
print("FROZEN_AT_START", kept[0])
"""


def test_a_job_process_keeps_its_objects_out_of_the_collector_from_start_to_exit():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines())
    assert lines["IMPORTED"] == "True"  # the pipeline's modules are imported before the freeze
    assert int(lines["FROZEN_AT_START"]) > 50_000  # table1's modules, with its agents and metrics
    assert int(lines["FROZEN_AT_EXIT"]) > 4000  # the job's objects (5000 lists), taken at exit
