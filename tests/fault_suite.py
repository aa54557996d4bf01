"""The fault and escape suite as one table: every escape attempt per backend, every fault kind and every
kind of bad input, each with the outcome its tests hold it to and the tests that do so (pytest node ids;
``file::test`` takes every parameter of the test, ``file::test[id]`` one).

``scripts/security_report.py`` (``make security-report``) runs these tests and prints the figures;
``tests/test_fault_suite.py`` checks that every test named here exists.
"""

from __future__ import annotations

from dataclasses import dataclass

from test_bad_input import CASES as BAD_INPUT
from test_escapes import ESCAPES

BACKENDS = ("local", "docker")
# By design, not counted: a container's own layer is writable (docs/security.md), so on Docker only the
# host's side of "write outside the sandbox" and the capped folders are checked.
DOCUMENTED_MISSES = {"docker": "writes to the container's own layer land in the engine's storage, by design"}


@dataclass(frozen=True)
class SuiteCase:
    """One case: its kind (escape, fault, bad-input), what happens, the expected outcome, its tests."""

    kind: str
    name: str
    expected: str
    tests: tuple[str, ...]
    backend: str = ""


CONTRACT = "tests/test_sandbox_contract.py"
FAULTS = "tests/test_faults_sandbox.py"
BLOCKED = "blocked: nothing of the host read, written, reached or signalled"

# (name, test) of the escape attempts with tests of their own, each run on both backends
ESCAPE_TESTS = [
    (
        "read root-only host files (/etc/shadow, Docker's key, SSH host keys)",
        "test_cannot_read_root_only_host_files",
    ),
    ("read the host's other files and the harness's environment", "test_cannot_read_host_files"),
    (
        "write outside the sandbox (/usr, /etc, /, /root, the checkout)",
        "test_cannot_write_outside_the_sandbox",
    ),
    ("write anywhere but the workspace (/dev, /etc, /usr, /)", "test_only_the_workspace_is_writable"),
    ("reach the network or the host's ports", "test_no_network"),
    ("signal a host process", "test_cannot_signal_host_processes"),
    ("see the host's processes", "test_cannot_see_host_processes"),
    ("reach host files through a symlink handed to the file API", "test_symlinks_cannot_reach_host_files"),
    (
        "name paths outside the transfer folders in the file API",
        "test_paths_outside_the_transfer_folders_are_refused",
    ),
    ("read API keys from the environment", "test_environment_comes_from_spec_and_call_only"),
    (
        "reach a service on the host's loopback with network allowed",
        "test_a_sandbox_with_network_cannot_reach_a_service_on_the_hosts_loopback",
    ),
    ("make system calls a seccomp filter refuses (no filter in force)", "test_a_seccomp_filter_is_in_force"),
]
# (name, test) of escape attempts on one backend only: the local backend shares the host's kernel view
# (its /etc, loopback, keyring and memory), which a container never sees
LOCAL_ESCAPES = [
    (
        "read a root-only file made or renamed into /etc after the agent's shell started",
        "test_an_open_shell_cannot_read_a_root_only_file_made_or_renamed_in_after_it_started",
    ),
    (
        "reach the host's loopback, the NAT gateway or an abstract socket with network allowed",
        "test_a_local_sandbox_with_network_cannot_reach_the_hosts_loopback_or_abstract_sockets",
    ),
    ("read the kernel keyring (keyctl)", "test_the_local_sandbox_refuses_the_kernel_keyring_as_docker_does"),
    ("exhaust the host's inodes from the workspace", "test_the_local_workspace_caps_its_file_count"),
    (
        "hold memory past the limit in many processes, memfds and shared memory",
        "test_the_local_sandbox_holds_its_memory_together_shared_memory_included",
    ),
]
CAPS = [
    ("fill /dev/shm beyond the workspace cap", "test_shared_memory_is_capped"),
    ("fill the disk beyond the workspace cap", "test_full_disk_stays_inside_the_sandbox"),
]
LOCAL_ONLY = {"test_only_the_workspace_is_writable"}  # on Docker it checks only /dev/shm (see above)


def _escapes(backend: str) -> list[SuiteCase]:
    cases = [
        SuiteCase("escape", name, BLOCKED, (f"{CONTRACT}::{test}[{backend}]",), backend)
        for name, test in ESCAPE_TESTS
        if backend == "local" or test not in LOCAL_ONLY
    ]
    cases += [
        SuiteCase("escape", name, BLOCKED, (f"{CONTRACT}::{test}",), backend)
        for name, test in LOCAL_ESCAPES
        if backend == "local"
    ]
    cases += [
        SuiteCase(
            "escape",
            name,
            "blocked: ENOSPC inside, the host untouched",
            (f"{FAULTS}::{test}[{backend}]",),
            backend,
        )
        for name, test in CAPS
    ]
    cases += [
        SuiteCase(
            "escape",
            e.name,
            BLOCKED,
            (f"tests/test_escapes.py::test_an_escape_attempt_is_blocked[{backend}-{e.name}]",),
            backend,
        )
        for e in ESCAPES
    ]
    return cases


INVALID = "the task is invalid with a one-line reason; the run goes on"
PROVIDER_ERROR = "provider_error for that episode, retried as infrastructure, never scored"
QUARANTINED = "one line naming the file, moved aside, rebuilt by the rerun"
FAULT_CASES = [
    SuiteCase(
        "fault",
        "a grader that raises, crashes or writes garbage",
        INVALID,
        (
            "tests/test_task_code.py::test_a_failing_grader_is_one_line",
            "tests/test_task_code.py::test_check_marks_a_raising_grader_invalid_and_goes_on",
        ),
    ),
    SuiteCase(
        "fault",
        "a grader that hangs",
        "killed at its time limit; SIGTERM ends the run within 5 s",
        (
            "tests/test_task_code.py::test_a_hanging_grader_is_killed_at_the_time_limit",
            "tests/test_task_code.py::test_sigterm_ends_a_check_stuck_in_a_grader_within_5_s",
            "tests/test_task_code.py::test_stopping_the_harness_kills_task_code_and_refuses_new_runs",
        ),
    ),
    SuiteCase(
        "fault",
        "a malformed provider reply (not JSON, message null, another protocol's body)",
        PROVIDER_ERROR,
        (
            "tests/test_llm_agent.py::test_a_malformed_reply_is_a_provider_error",
            "tests/test_provider_base.py::test_a_malformed_reply_names_the_error_and_shows_the_reply_cut_at_200_characters",
        ),
    ),
    SuiteCase(
        "fault",
        "a provider that keeps failing",
        PROVIDER_ERROR,
        ("tests/test_llm_agent.py::test_a_provider_that_keeps_failing_is_an_infrastructure_failure",),
    ),
    SuiteCase(
        "fault",
        "a model whose every episode fails",
        "non-zero exit, one line naming it, its rows kept",
        ("tests/test_model_failure.py",),
    ),
    SuiteCase(
        "fault",
        "a damaged episode record (empty, truncated, not a record)",
        QUARANTINED,
        ("tests/test_corrupt_state.py::test_a_damaged_episode_record_is_moved_aside_and_run_again",),
    ),
    SuiteCase(
        "fault",
        "a truncated or unhashed lineage manifest",
        QUARANTINED,
        (
            "tests/test_corrupt_state.py::test_a_truncated_manifest_moves_its_node_aside_and_a_rerun_rebuilds_it",
            "tests/test_corrupt_state.py::test_a_manifest_without_an_identity_hash_is_rebuilt",
        ),
    ),
    SuiteCase(
        "fault",
        "a lineage manifest edited by hand (depth, parent, applications)",
        "refused: the hash covers it",
        ("tests/test_corrupt_state.py::test_a_manifest_edited_by_hand_is_refused",),
    ),
    SuiteCase(
        "fault",
        "a damaged response cache",
        QUARANTINED,
        (
            "tests/test_corrupt_state.py::test_a_damaged_response_cache_is_moved_aside_and_started_afresh",
            "tests/test_response_cache.py::test_a_file_that_is_not_a_database_is_moved_aside_on_first_use",
        ),
    ),
    SuiteCase(
        "fault",
        "a damaged MLflow database",
        QUARANTINED,
        (
            "tests/test_corrupt_state.py::test_a_damaged_mlflow_database_is_moved_aside_and_the_run_is_recorded",
            "tests/test_corrupt_state.py::test_a_rerun_over_damaged_state_recovers_and_names_each_file",
        ),
    ),
    SuiteCase(
        "fault",
        "a fork bomb",
        "capped at the pids limit, killed at the timeout",
        (f"{FAULTS}::test_fork_bomb_is_capped_and_killed_at_the_timeout",),
    ),
    SuiteCase(
        "fault",
        "daemons that ignore SIGTERM",
        "killed at the timeout and at close",
        (f"{FAULTS}::test_sigterm_ignoring_daemons_die_at_timeout_and_close",),
    ),
    SuiteCase(
        "fault",
        "gigabytes of output",
        "kept up to the cap, the command killed",
        (f"{FAULTS}::test_gigabytes_of_output_are_cut_and_the_command_killed",),
    ),
    SuiteCase(
        "fault",
        "a service dying mid-episode",
        "service_error, retried, never scored",
        ("tests/test_faults_service.py",),
    ),
    SuiteCase(
        "fault",
        "the harness killed with SIGKILL",
        "the next run removes what it left; nothing of a live run",
        (
            "tests/test_stale_cleanup.py",
            "tests/test_claw_kill.py",
        ),
    ),
    SuiteCase(
        "fault",
        "a sandbox that cannot set itself up (a masked host file vanishing)",
        "an infrastructure error: retried, never scored or cached as the command's exit",
        (
            f"{FAULTS}::test_a_sandbox_that_cannot_start_a_command_is_an_infrastructure_error_never_its_result",
        ),
    ),
    SuiteCase(
        "fault",
        "a daemon that clears its environment and outlives its command's timeout",
        "killed with the command's process tree",
        (f"{CONTRACT}::test_a_timeout_kills_a_daemon_that_cleared_its_environment",),
    ),
    SuiteCase(
        "fault",
        "a 512 MB sparse file read back",
        "the harness reads no further than asked",
        (f"{CONTRACT}::test_a_file_is_read_back_no_further_than_asked",),
    ),
    SuiteCase(
        "fault",
        "a large workspace and image /app copied into a container",
        "streamed to the engine; the harness holds a few MB",
        (f"{CONTRACT}::test_docker_streams_a_large_workspace_and_image_app_without_holding_them",),
    ),
    SuiteCase(
        "fault",
        "a task whose instruction links to /proc/self/environ",
        "refused with one line; the exported key in no file",
        (
            "tests/test_secret_files.py::test_an_instruction_linked_to_the_process_environment_is_refused_and_the_key_lands_nowhere",
        ),
    ),
    SuiteCase(
        "fault",
        "an episode record edited by hand or swapped for another episode's",
        QUARANTINED,
        ("tests/test_corrupt_state.py::test_an_edited_or_swapped_episode_record_is_refused_and_run_again",),
    ),
    SuiteCase(
        "fault",
        "a lineage node folder without its manifest",
        QUARANTINED,
        ("tests/test_corrupt_state.py::test_a_node_folder_without_its_manifest_is_moved_aside_and_rebuilt",),
    ),
    SuiteCase(
        "fault",
        "an MLflow database that is a folder or another program's database",
        QUARANTINED,
        (
            "tests/test_corrupt_state.py::test_an_mlflow_database_that_is_not_one_is_moved_aside_and_the_run_is_recorded",
        ),
    ),
    SuiteCase(
        "fault",
        "garbage among the records waiting for MLflow",
        QUARANTINED,
        (
            "tests/test_corrupt_state.py::test_garbage_among_the_pending_records_is_moved_aside_and_the_rest_written",
        ),
    ),
    SuiteCase(
        "fault",
        "the MLflow writer dying with a record claimed",
        "the record queued again and written by the next run",
        (
            "tests/test_corrupt_state.py::test_a_record_claimed_by_a_writer_that_died_is_written_by_the_next_run",
        ),
    ),
    SuiteCase(
        "fault",
        "Ctrl-C or a full disk mid-run",
        "one line saying finished work is kept; exit 130 or 1",
        (
            "tests/test_crash_resume.py::test_ctrl_c_ends_a_run_with_one_line_saying_finished_work_is_kept",
            "tests/test_crash_resume.py::test_a_full_disk_ends_a_run_with_one_line_saying_finished_work_is_kept",
        ),
    ),
    SuiteCase(
        "fault",
        "the viewer pointed at any folder (a project root, a runs folder, the cache, a store, a run)",
        "a view of what it holds; anything else one line",
        ("tests/test_viewer.py::test_stores_are_views_too_and_anything_else_is_one_line",),
    ),
    SuiteCase(
        "fault",
        "file names that are not UTF-8",
        "hashed and checked like any other",
        ("tests/test_check.py::test_a_file_name_that_is_not_utf8_is_hashed_and_checked",),
    ),
    SuiteCase(
        "fault",
        "the harness killed with scratch folders of the checks and the viewer open",
        "owner-labelled, swept by the next run and clean-stale",
        (
            "tests/test_stale_cleanup.py::test_the_checks_and_the_viewer_label_their_scratch_so_a_killed_runs_is_swept",
        ),
    ),
    SuiteCase(
        "fault",
        "a key in the config or the environment",
        "in no file written, none world-readable",
        (
            "tests/test_secret_files.py",
            "tests/test_secrets.py",
        ),
    ),
]

BAD_INPUT_CASES = [
    SuiteCase(
        "bad-input",
        case.kind,
        f"one line matching {case.says!r}, exit {case.status}, no work done",
        (f"tests/test_bad_input.py::test_bad_input_gives_one_line_and_a_non_zero_exit[{case.kind}]",),
    )
    for case in BAD_INPUT
]

SUITE = [*(c for backend in BACKENDS for c in _escapes(backend)), *FAULT_CASES, *BAD_INPUT_CASES]
