"""A process that runs jobs keeps what lives as long as it out of the cyclic collector's walks: the
objects alive when it starts its jobs, and at exit everything left, so that the interpreter's collections
while it shuts down walk nothing."""

from __future__ import annotations

import subprocess
import sys

PROBE = """
import atexit, gc
kept = []
atexit.register(lambda: print("FROZEN_AT_EXIT", gc.get_freeze_count() - kept[0]))  # runs last
from res_repro.app import keep_for_the_process
keep_for_the_process()
keep_for_the_process()  # once per process: a second call changes nothing
kept.append(gc.get_freeze_count())
made_by_the_job = [[i] for i in range(5000)]
print("FROZEN_AT_START", kept[0], "COUNTED_NOW", gc.get_count()[0] > 0)
"""


def test_a_job_process_keeps_its_objects_out_of_the_collector_from_start_to_exit():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    start, _, counted = result.stdout.split("FROZEN_AT_START ")[1].split()[:3]
    assert int(start) > 10_000  # the imported modules, classes and functions
    assert counted == "True"  # what is made afterwards is tracked as usual while the job runs
    at_exit = int(result.stdout.split("FROZEN_AT_EXIT ")[1].split()[0])
    assert at_exit > 4000  # the job's objects (5000 lists), taken at exit
