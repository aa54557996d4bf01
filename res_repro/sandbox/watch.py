"""Whether anything in some host folders changed since a scan of them: Linux inotify, through the C
library (the interpreter has no binding of its own).

A :class:`FolderWatch` is armed on each folder *before* that folder is listed, so a change made while a
scan runs is seen on the next look rather than lost. Where inotify is not available (another kernel,
the watch limit reached) the watch reports a change every time, so callers simply scan again.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os

IN_NONBLOCK = os.O_NONBLOCK
IN_CLOEXEC = os.O_CLOEXEC
# an entry created, deleted, renamed or re-permissioned in the folder, or the folder itself going away
IN_ATTRIB, IN_MOVED_FROM, IN_MOVED_TO, IN_CREATE, IN_DELETE = 0x4, 0x40, 0x80, 0x100, 0x200
IN_DELETE_SELF, IN_MOVE_SELF, IN_ONLYDIR = 0x400, 0x800, 0x01000000
ENTRY_EVENTS = IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE | IN_DELETE
WATCHED_EVENTS = ENTRY_EVENTS | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR
IN_CLOSE_WRITE = 0x8
CONTENT_EVENTS = WATCHED_EVENTS | IN_CLOSE_WRITE  # entries, and files written in place


@functools.cache
def _libc() -> ctypes.CDLL:
    """The C library, for inotify_init1(2) and inotify_add_watch(2)."""
    return ctypes.CDLL(None, use_errno=True)


class FolderWatch:
    """A set of watched folders; :meth:`changed` says whether any of them changed since it was armed."""

    def __init__(self, events: int = WATCHED_EVENTS) -> None:
        self._pid = os.getpid()
        self._events = events
        fd = _libc().inotify_init1(IN_NONBLOCK | IN_CLOEXEC)
        self._fd: int | None = fd if fd >= 0 else None
        self._broken = self._fd is None

    def add(self, folder: str) -> None:
        """Watch ``folder`` (not what lies below it); a folder that cannot be watched breaks the watch."""
        if self._fd is None:
            return
        if _libc().inotify_add_watch(self._fd, os.fsencode(folder), self._events) < 0:
            # a folder gone since it was listed is a change the next look reports anyway
            self._broken = True

    def changed(self) -> bool:
        """True when a watched folder changed (or the watch cannot tell, or this is a forked copy)."""
        if self._broken or self._fd is None or os.getpid() != self._pid:
            return True
        try:
            os.read(self._fd, 65536)
        except BlockingIOError:
            return False
        except OSError as exc:
            return exc.errno != errno.EAGAIN
        return True

    def close(self) -> None:
        """Stop watching."""
        fd, self._fd = self._fd, None
        if fd is not None and os.getpid() == self._pid:
            os.close(fd)
