"""Runs a GoogleTest executable once with a JSON report and reads every test's outcome.

pytest keeps the expected test names of each native executable; it reports one item per native
test (ran and passed, with GoogleTest's failure text otherwise) and one item asserting that the
executable ran no test outside the list, so a deleted, renamed or added native test fails pytest.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class GTestCase:
    """One test of the report: `Suite.Name`, whether it ran, and its failure messages."""

    name: str
    status: str  # "RUN", or "NOTRUN" for a disabled test
    result: str  # "COMPLETED", "SKIPPED" (GTEST_SKIP) or "SUPPRESSED"
    failures: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return self.status == "RUN" and self.result == "COMPLETED" and not self.failures


@dataclass(frozen=True, repr=False)
class GTestRun:
    """One run of a GoogleTest executable: its exit code, output and per-test outcomes."""

    command: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    cases: Mapping[str, GTestCase]

    def __repr__(self) -> str:
        return (
            f"<{Path(self.command[0]).name}: {len(self.cases)} tests, exit code {self.returncode}>"
        )

    def output_tail(self) -> str:
        return (
            f"command: {' '.join(self.command)} (exit code {self.returncode})\n"
            f"--- stdout ---\n{self.stdout[-4000:]}\n--- stderr ---\n{self.stderr[-4000:]}"
        )

    def assert_passed(self, name: str) -> None:
        """`name` ran and passed; otherwise fails with GoogleTest's messages for it."""
        __tracebackhide__ = True
        case = self.cases.get(name)
        if case is None and not self.cases:
            raise AssertionError(
                f"native test {name}: the run wrote no report\n{self.output_tail()}"
            )
        if case is None:
            raise AssertionError(
                f"native test {name} did not run: {self!r} ran no test of that name "
                "(deleted or renamed? update the expected list)"
            )
        if case.status != "RUN":
            raise AssertionError(f"native test {name} is disabled ({case.status})")
        if case.result != "COMPLETED":
            raise AssertionError(f"native test {name} did not complete: {case.result}")
        if case.failures:
            raise AssertionError(f"native test {name} failed:\n" + "\n\n".join(case.failures))

    def assert_ran_exactly(self, expected: Iterable[str]) -> None:
        """The executable ran the expected tests and no other, and exited with 0."""
        __tracebackhide__ = True
        wanted = set(expected)
        unexpected = sorted(set(self.cases) - wanted)
        missing = sorted(wanted - set(self.cases))
        problems = []
        if unexpected:
            problems.append(f"tests outside the expected list (add them to it): {unexpected}")
        if missing:
            problems.append(f"expected tests that did not run: {missing}")
        if problems:
            raise AssertionError(f"{self!r}: " + "\n".join(problems))
        assert self.returncode == 0, self.output_tail()


def _cases(report: dict[str, Any]) -> dict[str, GTestCase]:
    cases = {}
    for suite in report.get("testsuites", []):
        for test in suite.get("testsuite", []):
            name = f"{suite['name']}.{test['name']}"
            failures = tuple(f["failure"] for f in test.get("failures", []))
            cases[name] = GTestCase(name, test["status"], test.get("result", ""), failures)
    return cases


def run_gtest(
    binary: Path, report: Path, env: Mapping[str, str] | None = None, *args: str
) -> GTestRun:
    """Runs `binary` once, writing GoogleTest's JSON report to `report`. A run that writes no
    report (a crash) has no cases, and every test's item shows the output."""
    report.unlink(missing_ok=True)
    command = (str(binary), f"--gtest_output=json:{report}", *args)
    result = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, **(env or {})}
    )
    cases = _cases(json.loads(report.read_text())) if report.exists() else {}
    return GTestRun(command, result.returncode, result.stdout, result.stderr, cases)
