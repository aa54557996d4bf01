"""Errors caused by the user's input: reported as one clear line, never as a traceback."""

from __future__ import annotations


class UserInputError(ValueError):
    """A config value, a file or a name is wrong; the message says where and what was expected."""


class MissingKeyError(UserInputError):
    """A model's API key variable is not set; raised before any work starts."""
