"""Objects shared by a whole run within one process: the pools that the outermost of nested blocks opens
(warm local sandboxes, Claw-Eval-Live services) and every episode of the run uses."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

T = TypeVar("T")


class ProcessWide(Generic[T]):
    """The object of the outermost open :meth:`scope` block in this process (``current``), or None."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.current: T | None = None

    @contextmanager
    def scope(self, make: Callable[[], T], close: Callable[[T], None]) -> Iterator[T]:
        """Within the block, ``current`` is the object of the outermost block, which ``make`` creates;
        nested blocks share it. When the outermost block ends, ``current`` is cleared and ``close`` is
        called on the object."""
        with self._lock:
            outermost = self.current is None
            if outermost:
                self.current = make()
            held = self.current
        assert held is not None
        try:
            yield held
        finally:
            if outermost:
                with self._lock:
                    self.current = None
                close(held)
