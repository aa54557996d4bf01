"""Errors caused by the user's input: reported as one clear line, never as a traceback."""

from __future__ import annotations


class UserInputError(ValueError):
    """A config value, a file or a name is wrong; the message says where and what was expected."""


class MissingKeyError(UserInputError):
    """A model's API key variable is not set; raised before any work starts."""


class RunFailedError(RuntimeError):
    """The run finished and wrote its results, but part of it failed entirely (a model whose every
    episode ended in an infrastructure error): reported as one line with a non-zero exit."""
