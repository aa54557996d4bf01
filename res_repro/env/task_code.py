"""Python files that ship with a task (reference programs, graders), executed as fresh modules."""

from __future__ import annotations

import functools
import hashlib
import inspect
import sys
from collections.abc import Callable
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

from res_repro.env.errors import TaskFormatError


@functools.lru_cache(maxsize=256)
def _compiled_source(source: str) -> CodeType:
    return compile(source, "<task file>", "exec", dont_inherit=True)  # its own __future__ imports only


def _renamed(code: CodeType, filename: str) -> CodeType:
    """``code`` with every nested code object reporting ``filename`` (for tracebacks)."""
    consts = tuple(_renamed(c, filename) if isinstance(c, CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _compiled(source: str, filename: str) -> CodeType:
    """Bytecode of a task file, compiled once per distinct source: every environment of a lineage
    carries the same grader, so only the first of them pays for compiling it."""
    return _renamed(_compiled_source(source), filename)


def _load_module(path: Path, name: str) -> ModuleType:
    """Execute a task's Python file as a fresh module, writing no bytecode into the task directory."""
    try:
        code = _compiled(path.read_text(encoding="utf-8"), str(path))
    except (OSError, SyntaxError) as exc:
        raise TaskFormatError(path, None, f"cannot be loaded as Python: {exc}") from None
    module = ModuleType(name)
    module.__file__ = str(path)
    sys.modules[name] = module  # dataclasses and typing resolve names through the module's entry
    try:
        exec(code, module.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def load_function(path: Path, name: str) -> Callable[..., Any]:
    """The function ``name`` defined in the task file ``path``."""
    module = _load_module(path, f"res_task_{hashlib.sha1(str(path).encode()).hexdigest()[:12]}_{path.stem}")
    function = getattr(module, name, None)
    if not callable(function):
        raise TaskFormatError(path, name, f"expected a function {name}(...)")
    return function


def call_solve(solve: Callable[..., Any], call: Callable[..., Any], instruction: str) -> Any:
    """Run a reference program's ``solve(call)``, or ``solve(call, instruction)`` when it takes the task's
    instruction too (a task whose documents are inlined in its prompt)."""
    return solve(call, instruction) if len(inspect.signature(solve).parameters) >= 2 else solve(call)
