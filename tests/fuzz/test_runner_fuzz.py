"""kiln_runner's command line fuzzed under AddressSanitizer and UndefinedBehaviorSanitizer.

runner_fuzz.py runs fuzz_runner (kiln_runner over the fuzz library's kernels, sanitized) on random
and mutated command lines: corpus seeds and the program fuzz driver's mutants (--mutate-to),
special files, wrong input files, and good, bad, huge and missing flag values. Every run must end
with exit code 0, 1 or 2 and a message, and a seed run on its own inputs must write PyTorch's
outputs. KILN_RUNNER_FUZZ_SECONDS (default 40) and KILN_FUZZ_SEED (default 1) set the run.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from runner_fuzz import Summary, fuzz

from buildtools import run


def _report(summary: Summary) -> str:
    lines = [summary.text()]
    for failure in summary.failures[:5]:
        lines.append(f"{failure.problems}\nargv: {failure.case.argv}\n{failure.stderr[-3000:]}")
    return "\n".join(lines)


def test_the_runner_is_sanitized(fuzz_runner: Path) -> None:
    libraries = run(["ldd", str(fuzz_runner)]).stdout
    assert "libasan" in libraries and "libubsan" in libraries, libraries


def test_runner_fuzzing_finds_nothing(
    fuzz_runner: Path, corpus: Path, driver_mutants: Path, tmp_path: Path
) -> None:
    seconds = float(os.environ.get("KILN_RUNNER_FUZZ_SECONDS", "40"))
    seed = int(os.environ.get("KILN_FUZZ_SEED", "1"))
    summary = fuzz(
        fuzz_runner, corpus, driver_mutants, seconds, seed, failure_dir=tmp_path / "failures"
    )
    assert not summary.failures, _report(summary)
    # The run got somewhere: every exit code, and seeds whose outputs were compared.
    assert summary.runs >= 2 * seconds and set(summary.codes) == {"0", "1", "2"}, _report(summary)
    assert summary.compared >= max(1, seconds / 10), _report(summary)


def _fake_runner(directory: Path, body: str) -> Path:
    path = directory / "fake_runner"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        ("kill -SEGV $$", "crash"),
        ("exit 3", "crash"),
        ("echo '==1==ERROR: AddressSanitizer: heap-buffer-overflow' >&2; exit 1", "crash"),
        ("exec sleep 30", "hang"),
        ("exit 1", "message"),
        ("echo 'load: 1 us'; exit 0", "wrong output"),
    ],
)
def test_the_harness_reports_what_it_must(
    corpus: Path, tmp_path: Path, body: str, kind: str
) -> None:
    """The checks themselves: a runner that crashes, hangs, fails silently or writes no outputs
    is reported (here a shell script stands in for it)."""
    runner = _fake_runner(tmp_path, body)
    summary = fuzz(runner, corpus, None, 0, seed=1, timeout=1, max_runs=8)
    assert summary.runs == 8
    assert summary.kinds()[kind] > 0, summary.text()
