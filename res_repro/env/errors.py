"""Errors for bad input: each names the file, the field and what was expected."""

from __future__ import annotations

from pathlib import Path

from res_repro.errors import UserInputError


class TaskFormatError(UserInputError):
    """A task directory or file is malformed. The message is one line a user can act on."""

    def __init__(self, path: Path | str, field: str | None, expected: str) -> None:
        self.path = Path(path)
        self.field = field
        self.expected = expected
        where = f"{self.path}: field '{field}'" if field else f"{self.path}"
        super().__init__(f"{where}: {expected}")
