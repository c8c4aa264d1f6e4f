"""The program loader fuzzed under AddressSanitizer and UndefinedBehaviorSanitizer.

tests/fuzz builds the fuzz target (program_fuzzer.cpp: Program::load, MethodMeta,
HeapMethodMemory, Method::load, zero inputs, execute) and its standalone driver, with the
executor, the runtime and the corpus programs' kernels compiled with both sanitizers, and runs
it over ExecuTorch-written programs (corpus.py) and deterministic mutations of them. Any sanitizer
report, abort, signal or hang fails the run. KILN_FUZZ_SECONDS (default 30) and KILN_FUZZ_SEED
(default 1) set the run; docs/programs.md (Verification) shows longer runs by hand.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from corpus import SEEDS, seed_input
from paired_input import split_input

from buildtools import run

# What each seed reaches unmutated. The counter's in-place buffer update needs aten::copy_ and
# dim_order_ops::_to_dim_order_copy.out, which the fuzz library can select once Kiln has kernels
# for them; until then its method is refused as missing operators (still a load of every check).

# The driver's own seeds (synthetic.h), after the corpus's: each builds and reaches its stage.
SYNTHETIC = {
    "chain-3": "ran",
    "chain-300": "ran",
    "shared_instruction-200": "program refused",  # 200 x 255 arguments compared pairwise
    "shared_list-200": "ran",
    "shared_tensor_list-200": "ran",
    "shared_tensor-50": "ran",
    # Binding its input once wrote into the program's constant (a crash where it is mapped).
    "constant_input-1": "program refused",
    # Load once read the absent items vector of the list through a null pointer.
    "itemless_list-1": "method refused",
}
NUM_SYNTHETIC = 14


def _drive(driver: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(driver), *args], capture_output=True, text=True)


def _count(label: str, result: subprocess.CompletedProcess[str]) -> int:
    """The number after "<label>: " at the start of a line of the driver's summary."""
    found = re.search(rf"^{label}: (\d+)", result.stdout, re.MULTILINE)
    assert found is not None, _report(result)
    return int(found[1])


def _report(result: subprocess.CompletedProcess[str]) -> str:
    return f"--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-8000:]}"


def test_the_driver_is_sanitized(fuzz_driver: Path) -> None:
    libraries = run(["ldd", str(fuzz_driver)]).stdout
    assert "libasan" in libraries and "libubsan" in libraries, libraries


def test_every_seed_loads_and_runs(fuzz_driver: Path, corpus: Path) -> None:
    result = _drive(fuzz_driver, "--iterations", str(len(SEEDS) + NUM_SYNTHETIC), str(corpus))
    assert result.returncode == 0, _report(result)
    outcomes = dict(re.findall(r"^seed ([\w.]+)\.pte: (.+)$", result.stdout, re.MULTILINE))
    assert outcomes.keys() == set(SEEDS), _report(result)
    for name, outcome in outcomes.items():
        assert outcome == "ran", f"{name}: {outcome}\n{_report(result)}"
    synthetic = dict(re.findall(r"^seed synthetic:(\S+): (.+)$", result.stdout, re.MULTILINE))
    assert len(synthetic) == NUM_SYNTHETIC, _report(result)
    assert synthetic.items() >= SYNTHETIC.items(), _report(result)


def test_fuzzing_finds_no_crash(fuzz_driver: Path, corpus: Path, tmp_path: Path) -> None:
    seconds = os.environ.get("KILN_FUZZ_SECONDS", "30")
    seed = os.environ.get("KILN_FUZZ_SEED", "1")
    crashes = tmp_path / "crashes"
    result = _drive(
        fuzz_driver, "--seconds", seconds, "--seed", seed, "--crash-dir", str(crashes), str(corpus)
    )
    saved = sorted(p.name for p in crashes.glob("*.pte")) if crashes.exists() else []
    assert result.returncode == 0, f"saved inputs: {saved} in {crashes}\n{_report(result)}"
    assert "crashes: 0" in result.stdout and "timeouts: 0" in result.stdout, _report(result)
    assert "Sanitizer" not in result.stderr and "runtime error" not in result.stderr
    # The run got somewhere: many inputs, and mutants that still run to the end.
    assert _count("iterations", result) > 1000 and _count("  ran", result) > len(SEEDS)


def test_the_driver_saves_a_crashing_input_and_goes_on(
    fuzz_driver: Path, corpus: Path, tmp_path: Path
) -> None:
    options = ["--iterations", "20", "--crash-at", "12", "--crash-dir", str(tmp_path)]
    result = _drive(fuzz_driver, *options, str(corpus))
    assert result.returncode == 1, _report(result)
    saved = tmp_path / "crash-1-12.pte"
    assert f"crash: iteration 12 exited with status 1; input saved to {saved}" in result.stdout
    assert "crashes: 1" in result.stdout and "iterations: 20 " in result.stdout, _report(result)
    assert "AddressSanitizer: ABRT" in result.stderr  # the report of the crash, with its stack
    replayed = _drive(fuzz_driver, "--replay", str(saved))
    assert replayed.returncode == 0 and replayed.stdout.startswith(f"{saved}: "), _report(replayed)


def test_the_program_is_mapped_read_only(fuzz_driver: Path, corpus: Path, tmp_path: Path) -> None:
    """A write into the loaded program's bytes (as a kernel writing into a constant would) is a
    crash, as it is in kiln_runner and kiln.load(path), whose files are mapped PROT_READ."""
    options = ["--iterations", "10", "--write-at", "3", "--crash-dir", str(tmp_path)]
    result = _drive(fuzz_driver, *options, "--no-synthetic", str(corpus))
    assert result.returncode == 1 and "crashes: 1" in result.stdout, _report(result)
    assert "crash: iteration 3 " in result.stdout, _report(result)
    assert "SEGV" in result.stderr and "WRITE memory access" in result.stderr, _report(result)


def test_mutate_to_writes_the_runs_inputs(fuzz_driver: Path, corpus: Path, tmp_path: Path) -> None:
    """--mutate-to writes iteration i's input as i.pte (the seeds, then mutants), the same for
    the same --seed: what another harness (e.g. kiln.load's) feeds on."""
    count = len(SEEDS) + NUM_SYNTHETIC + 300
    first, again = tmp_path / "a", tmp_path / "b"
    for out in (first, again):
        args = ["--mutate-to", str(out), "--count", str(count), "--seed", "5", str(corpus)]
        result = _drive(fuzz_driver, *args)
        assert result.returncode == 0 and f"wrote {count} inputs" in result.stdout, _report(result)
    written = [first / f"{i}.pte" for i in range(count)]
    assert sorted(first.iterdir()) == sorted(written)
    assert all(p.read_bytes() == (again / p.name).read_bytes() for p in written)
    seeds = sorted(corpus.glob("*.pte"))
    assert [p.read_bytes() for p in written[: len(seeds)]] == [seed_input(s) for s in seeds]
    # Mutants, nearly all distinct (a mutation can rewrite a field with the value it had).
    mutants = {p.read_bytes() for p in written[len(seeds) + NUM_SYNTHETIC :]}
    assert len(mutants - {seed_input(s) for s in seeds}) > 225
    # The programs with a data file: mutants of either part, paired with the other.
    programs = {s.read_bytes() for s in seeds}
    paired = [split_input(m) for m in mutants if split_input(m)[1] is not None]
    assert sum(program in programs for program, _ in paired) > 10  # the data file mutated
    assert sum(program not in programs for program, _ in paired) > 10  # the program mutated
    # The mutants are inputs the fuzz target accepts at every stage, some of them to the end.
    replayed = _drive(fuzz_driver, "--replay", *map(str, written[len(seeds) + NUM_SYNTHETIC :]))
    assert replayed.returncode == 0, _report(replayed)
    assert "ran" in replayed.stdout and "program refused" in replayed.stdout


def test_loading_is_linear_in_the_file_size(fuzz_driver: Path) -> None:
    """Programs that share one table among many offsets (a long list named by every value, one
    instruction of 255 arguments repeated) take load time linear in their size: the loader's
    work budget (plan_checks.h) refuses them once they would examine more than 256 items a byte.
    A quadratic load would take 16 times longer at 4 times the size; a linear one 4 times."""
    result = _drive(fuzz_driver, "--scaling", "--scaling-min", "2048", "--scaling-max", "8192")
    assert result.returncode == 0, _report(result)
    rows = re.findall(
        r"^scaling (\w+) n=(\d+) bytes=(\d+) ns=(\d+) outcome=(.+)$", result.stdout, re.MULTILINE
    )
    table: dict[str, dict[int, tuple[int, int, str]]] = {}
    for shape, n, size, ns, outcome in rows:
        table.setdefault(shape, {})[int(n)] = (int(size), int(ns), outcome)
    assert set(table) == {
        "chain",
        "shared_instruction",
        "shared_list",
        "shared_tensor_list",
        "shared_tensor",
    }, _report(result)
    for shape, sizes in table.items():
        (small_bytes, small_ns, _), (large_bytes, large_ns, _) = sizes[2048], sizes[8192]
        growth = (large_ns / large_bytes) / (small_ns / small_bytes)
        assert growth < 3, f"{shape}: time per byte grew {growth:.1f}x\n{_report(result)}"
    # The valid large plans load and run; the shared lists pass the budget and are refused.
    assert table["chain"][8192][2] == "ran" and table["shared_tensor"][8192][2] == "ran"
    for shape in ("shared_instruction", "shared_list", "shared_tensor_list"):
        assert table[shape][8192][2] == "program refused", _report(result)
