"""The one exception type the generator raises for bad input; the CLI prints it, no traceback."""

from __future__ import annotations

import argparse
from typing import NoReturn


class UserError(Exception):
    """A mistake in the user's input, rendered as ``path:line: message — fix``.

    ``path`` and ``line`` are None when there is no file to point at (a command-line flag); the
    location then reads ``path:`` or, for flags, the flag name passed as ``path``.
    """

    def __init__(self, path: str | None, line: int | None, message: str, fix: str) -> None:
        super().__init__(message)
        self.path = path
        self.line = line
        self.message = message
        self.fix = fix

    def location(self) -> str:
        if self.path is None:
            return "codegen"
        if self.line is None:
            return self.path
        return f"{self.path}:{self.line}"

    def render(self) -> str:
        return f"{self.location()}: {self.message} — {self.fix}"

    def __str__(self) -> str:
        return self.render()


class CliParser(argparse.ArgumentParser):
    """argparse whose usage mistakes become a UserError: one line, exit code of the tool, no
    traceback. Pass ``prog``; it names the tool in the message."""

    def error(self, message: str) -> NoReturn:
        raise UserError(self.prog, None, message, f"see '{self.prog} --help'")
