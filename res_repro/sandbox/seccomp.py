"""The local sandbox's seccomp filter: system calls a container has no business making fail with EPERM.

The list follows what Docker's default profile refuses to a container without extra capabilities: the
kernel keyring (``keyctl``, ``add_key``, ``request_key``: root's keys are readable by serial number from
a namespace that shares the host's keyring), loading code into the kernel, tracing and profiling the
host, swap, reboot and accounting. The filter is compiled once per process by libseccomp (through the
``pyseccomp`` bindings) and handed to bwrap (``--seccomp FD``), which installs it just before the
command starts. Where libseccomp cannot be loaded the sandbox refuses to start, saying what to install.
"""

from __future__ import annotations

import errno
import functools
import tempfile

from res_repro.sandbox.base import SandboxError

REFUSED = (
    "keyctl",
    "add_key",
    "request_key",
    "bpf",
    "perf_event_open",
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "open_by_handle_at",
    "userfaultfd",
    "swapon",
    "swapoff",
    "reboot",
    "acct",
    "lookup_dcookie",
    "quotactl",
)


@functools.cache
def filter_program() -> bytes:
    """The compiled BPF program (allow everything but :data:`REFUSED`, which fail with EPERM)."""
    try:
        import pyseccomp
    except (ImportError, OSError) as exc:  # the bindings load libseccomp.so at import
        raise SandboxError(
            f"the local sandbox needs libseccomp: apt-get install libseccomp2 ({exc})"
        ) from None
    program = pyseccomp.SyscallFilter(defaction=pyseccomp.ALLOW)
    for name in REFUSED:
        program.add_rule(pyseccomp.ERRNO(errno.EPERM), name)
    with tempfile.TemporaryFile() as compiled:
        program.export_bpf(compiled)
        compiled.seek(0)
        return compiled.read()
