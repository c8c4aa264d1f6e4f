"""Fuzzes the kiln_runner command line: a sanitized runner (fuzz_runner, built by
tests/fuzz/CMakeLists.txt over the fuzz library's kernels) run with random and mutated argv.

Each case is a command line drawn from a seeded generator: a program (a corpus seed, a mutant the
program fuzz driver wrote with --mutate-to, an empty file, a directory, a named pipe, /dev/zero, a
missing path, a truncated seed), with its data file (--data: the seed's or the mutant's .ptd, a
damaged one, another program's, a special file, or none), inputs (the right files, files of the
wrong size or dtype, special files, scalars, too many or too few), and flags with good, bad, huge
and missing values and unknown flags. Every run must end within the timeout with one of the
runner's documented exit codes (0 ran, 1 refused or failed, 2 usage) and, when it is not 0, a
one-line "kiln_runner: ..." message; never a signal, a sanitizer report or a hang. A seed run on
the right input files with --output-dir must write the outputs PyTorch computes for the same
inputs.

python tests/fuzz/runner_fuzz.py --runner R --corpus DIR [--mutants DIR] [--seconds S] [--seed N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

TESTS = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(TESTS / "program"), str(TESTS / "fuzz" / "python")]

from models import ZOO  # noqa: E402
from paired_input import split_input  # noqa: E402

# The sanitizers as the program fuzzer sets them: an allocation the heap cannot give returns null
# (past 2 GiB here, a machine with little memory), so the runner's own handling is what runs.
SANITIZER_ENV = {
    "ASAN_OPTIONS": "allocator_may_return_null=1:max_allocation_size_mb=2048:detect_leaks=0:"
    "handle_abort=1:abort_on_error=0",
    "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
}
REPORT_MARKERS = (
    "AddressSanitizer",
    "UndefinedBehaviorSanitizer",
    "runtime error:",
    "LeakSanitizer",
)
EXIT_CODES = {0, 1, 2}


@dataclass
class Files:
    """What the cases draw their paths from."""

    seeds: list[Path]
    mutants: list[Path]
    inputs: dict[str, list[Path]]  # model name -> its input files, as numpy's tofile() writes
    shapes: dict[str, list[tuple[int, ...]]]  # model name -> its inputs' shapes
    expected: dict[str, list[np.ndarray]]  # model name -> PyTorch's outputs on those inputs
    special: list[str]  # paths that are not programs: empty, directory, pipe, devices, missing
    wrong_inputs: list[str]  # files no program input has the size of
    out_dirs: list[str]
    other_data: list[str]  # data files damaged, or of other programs


def data_of(program: Path) -> Path | None:
    """The data file (.ptd) beside a program, when it has one (a special path has none)."""
    try:
        data = program.with_suffix(".ptd")
        return data if data.is_file() else None
    except (OSError, ValueError):  # a name too long, or none ("/")
        return None


def prepare(work: Path, corpus: Path, mutants: Path | None) -> Files:
    seeds = sorted(corpus.glob("*.pte"))
    inputs: dict[str, list[Path]] = {}
    shapes: dict[str, list[tuple[int, ...]]] = {}
    expected: dict[str, list[np.ndarray]] = {}
    for model in ZOO:
        module, args = model.create()
        shapes[model.name] = [tuple(a.shape) for a in args]
        paths = []
        for k, tensor in enumerate(args):
            path = work / f"{model.name}.input{k}.bin"
            tensor.contiguous().numpy().tofile(path)
            paths.append(path)
        inputs[model.name] = paths
        with torch.no_grad():
            outputs = module(*args)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        expected[model.name] = [o.contiguous().numpy() for o in outputs]
    (work / "empty.pte").write_bytes(b"")
    (work / "a_directory").mkdir(exist_ok=True)
    fifo = work / "a_fifo"
    if not fifo.exists():
        os.mkfifo(fifo)
    (work / "text.pte").write_text("not a program\n")
    truncated = []
    for seed in seeds[:4]:
        data = seed.read_bytes()
        for cut in (8, 31, len(data) // 2, len(data) - 1):
            path = work / f"{seed.stem}.cut{cut}.pte"
            path.write_bytes(data[:cut])
            truncated.append(str(path))
    sparse = work / "sparse.bin"  # 4 GiB, no blocks: mapped, then refused for its size
    with open(sparse, "wb") as f:
        f.truncate(4 << 30)
    (work / "one_byte.bin").write_bytes(b"\x01")
    (work / "nan.bin").write_bytes(b"\xff" * 4096)
    special = [
        str(work / "empty.pte"),
        str(work / "a_directory"),
        str(fifo),
        "/dev/zero",
        "/dev/null",
        str(work / "missing.pte"),
        str(work / "text.pte"),
        "",
        "-",
        "/",
        str(work / "a_directory") + "/",
        "x" * 5000,
        *truncated,
    ]
    wrong_inputs = [
        str(work / "empty.pte"),
        str(work / "one_byte.bin"),
        str(work / "nan.bin"),
        str(sparse),
        str(work / "a_directory"),
        str(fifo),
        "/dev/zero",
        "/dev/null",
        str(work / "missing.bin"),
        *(str(s) for s in seeds[:2]),
    ]
    out = work / "out"
    out.mkdir(exist_ok=True)
    out_dirs = [
        str(out),
        str(work / "no_such_dir"),
        str(work / "text.pte"),
        "/dev/null",
        "",
        "/proc",
    ]
    # The driver's mutants of a program and its data file, as the two files the runner takes.
    mutant_list = []
    paired = work / "mutants"
    paired.mkdir(exist_ok=True)
    for mutant in sorted(mutants.glob("*.pte")) if mutants is not None else []:
        program, data = split_input(mutant.read_bytes())
        if data is None:
            mutant_list.append(mutant)
            continue
        (paired / mutant.name).write_bytes(program)
        (paired / mutant.name).with_suffix(".ptd").write_bytes(data)
        mutant_list.append(paired / mutant.name)
    other_data = [str(data) for seed in seeds if (data := data_of(seed)) is not None]
    for seed in [s for s in seeds if data_of(s) is not None][:2]:
        data = seed.with_suffix(".ptd").read_bytes()
        for name, damaged in (
            ("cut", data[: len(data) // 2]),
            ("head", data[:40]),
            ("magic", data[:8] + b"XXXX" + data[12:]),
        ):
            path = work / f"{seed.stem}.{name}.ptd"
            path.write_bytes(damaged)
            other_data.append(str(path))
    return Files(
        seeds, mutant_list, inputs, shapes, expected, special, wrong_inputs, out_dirs, other_data
    )


def model_of(seed: Path) -> str:
    return seed.name.split(".")[0]


@dataclass
class Case:
    argv: list[str]
    compare: str | None = None  # the model whose outputs the run must write, when it runs
    out_dir: str | None = None


# Each count flag's values in its range, then values it must refuse. In range, --repeat stays
# small (a billion runs is a valid request, and a long one) and --max-memory ends at the default
# or SIZE_MAX (ASAN_OPTIONS above bound what the heap gives).
COUNTS: dict[str, tuple[list[str], list[str]]] = {
    "--repeat": (["0", "1", "2", "3"], ["1000000001", "-1", "", "1e3", "0x10", "+1", " 1", "1 "]),
    "--seed": (
        ["0", "1", "7", "18446744073709551615"],
        ["18446744073709551616", "-1", "abc", "1.5"],
    ),
    "--threads": (["1", "2", "3", "8", "256"], ["0", "257", "-1", "", "99999999999999999999"]),
    "--max-memory": (
        ["0", "1", "4096", "1048576", "67108864", "1073741824", "18446744073709551615"],
        ["18446744073709551616", "1GiB", "-1", "1e9"],
    ),
}
METHODS = ["forward", "", "nope", "forward ", "x" * 5000, "\u00e9", "forward,forward"]
BACKENDS = [
    "portable",
    "ascend",
    "portable,ascend",
    "",
    ",",
    "bogus",
    "portable,portable",
    "PORTABLE",
]
UNKNOWN = ["--bogus", "--", "-x", "--help", "-h", "--profile=1", "--threads=2", "---", "--method"]
SCALARS = ["1", "-5", "1e308", "nan", "abc", "", "true", "9223372036854775808"]


def clean_case(rng: random.Random, files: Files) -> Case:
    """A seed on its right input files, with flags in range: it must run, and its outputs must
    be PyTorch's (a float seed's)."""
    seed = rng.choice(files.seeds)
    out_dir = files.out_dirs[0]
    argv = [str(seed), *(str(p) for p in files.inputs[model_of(seed)]), "--output-dir", out_dir]
    if (data := data_of(seed)) is not None:
        argv += ["--data", str(data)]
    if ".et_dynamic" in seed.name:  # the input files' shapes, within the program's bounds
        for k, shape in enumerate(files.shapes[model_of(seed)]):
            argv += ["--shape", f"{k}=" + ",".join(str(size) for size in shape)]
    for flag in ("--threads", "--repeat", "--seed"):
        if rng.random() < 0.5:
            argv += [flag, rng.choice(COUNTS[flag][0])]
    if rng.random() < 0.3:
        argv += ["--max-memory", rng.choice(["67108864", "1073741824", "18446744073709551615"])]
    if rng.random() < 0.3:
        argv.append("--profile")
    if rng.random() < 0.2:
        argv += ["--method", "forward", "--backends", "portable"]
    # An int8 seed (its exporter's name ends in "_int8", corpus.py) runs the quantized model:
    # near the float model's outputs, not within RTOL and ATOL of them.
    quantized = seed.name.split(".")[1].endswith("_int8")
    return Case(argv, None if quantized else model_of(seed), out_dir)


def make_case(rng: random.Random, files: Files) -> Case:
    if rng.random() < 0.25:
        return clean_case(rng, files)
    argv: list[str] = []
    out_dir = None
    pick = rng.random()
    seed = rng.choice(files.seeds)
    if pick < 0.5 or not files.mutants:
        program = str(seed)
    elif pick < 0.8:
        program = str(rng.choice(files.mutants))
    else:
        program = rng.choice(files.special)
    argv.append(program)
    data = data_of(Path(program))
    data_pick = rng.random()
    if data is not None and data_pick < 0.8:
        argv += ["--data", str(data)]
    elif data_pick < 0.1:  # a damaged data file, another program's, or no data file at all
        argv += ["--data", rng.choice(files.other_data + files.special[:7])]

    right = [str(p) for p in files.inputs.get(model_of(seed), [])]
    inputs_pick = rng.random()
    if inputs_pick < 0.35:
        inputs: list[str] = []
    elif inputs_pick < 0.75:
        inputs = list(right)
    elif inputs_pick < 0.85:  # one too many or one too few
        inputs = right + [right[0]] if rng.random() < 0.5 else right[:-1]
    elif inputs_pick < 0.95:  # one replaced by a file of the wrong size, type or kind
        inputs = list(right)
        if inputs:
            inputs[rng.randrange(len(inputs))] = rng.choice(files.wrong_inputs)
    else:
        inputs = [rng.choice(SCALARS) for _ in range(rng.randrange(1, 3))]
    argv += inputs

    flags: list[list[str]] = []
    for flag, (good, bad) in COUNTS.items():
        if rng.random() < 0.3:
            flags.append([flag, rng.choice(bad if rng.random() < 0.2 else good)])
    if rng.random() < 0.15:
        flags.append(["--method", rng.choice(METHODS)])
    if rng.random() < 0.1:
        flags.append(["--backends", rng.choice(BACKENDS)])
    if rng.random() < 0.2:
        flags.append(["--profile"])
    if rng.random() < 0.3:
        out_dir = rng.choice(files.out_dirs)
        flags.append(["--output-dir", out_dir])
    if rng.random() < 0.05:
        flags.append([rng.choice(UNKNOWN)])
    rng.shuffle(flags)
    for f in flags:
        argv += f
    if rng.random() < 0.03:  # a flag without its value, last
        argv.append(rng.choice(list(COUNTS) + ["--method", "--backends", "--output-dir", "--data"]))
    if rng.random() < 0.03:
        rng.shuffle(argv)  # the program may come after the flags, or not first
    return Case(argv, None, out_dir)


@dataclass
class Result:
    case: Case
    code: int | None  # None: timed out
    stdout: str
    stderr: str
    seconds: float
    problems: list[str] = field(default_factory=list)


def run_case(runner: Path, case: Case, timeout: float, out_root: Path, index: int) -> Result:
    argv = list(case.argv)
    own_out = None
    if case.compare is not None and case.out_dir is not None:
        own_out = out_root / f"run{index}"  # a directory per run: runs go in parallel
        own_out.mkdir(parents=True, exist_ok=True)
        argv = [str(own_out) if a == case.out_dir else a for a in argv]
    env = dict(os.environ, **SANITIZER_ENV)
    start = time.monotonic()
    try:
        done = subprocess.run(
            [str(runner), *argv],
            capture_output=True,
            timeout=timeout,
            env=env,
            stdin=subprocess.DEVNULL,
        )
        code: int | None = done.returncode
        stdout = done.stdout.decode(errors="replace")
        stderr = done.stderr.decode(errors="replace")
    except subprocess.TimeoutExpired as expired:
        code = None
        stdout = (expired.stdout or b"").decode(errors="replace")
        stderr = (expired.stderr or b"").decode(errors="replace")
    result = Result(case, code, stdout, stderr, time.monotonic() - start)
    check(result)
    if own_out is not None:
        if code == 0:
            compare_outputs(result, own_out)
        else:
            result.problems.append("wrong output: a seed on its own inputs did not run")
        shutil.rmtree(own_out, ignore_errors=True)
    return result


def check(result: Result) -> None:
    problems = result.problems
    if result.code is None:
        problems.append("hang: no exit within the timeout")
        return
    if result.code < 0:
        problems.append(f"crash: ended by signal {-result.code}")
    elif result.code not in EXIT_CODES:
        problems.append(f"crash: exit code {result.code}, not one of 0, 1, 2")
    if any(marker in result.stderr for marker in REPORT_MARKERS):
        problems.append("crash: sanitizer report")
    if result.code in (1, 2):
        lines = [line for line in result.stderr.splitlines() if line.startswith("kiln_runner: ")]
        if not lines:
            problems.append("message: a failure without a 'kiln_runner: ' line on stderr")
        elif not all(c.isprintable() or c == "\t" for line in lines for c in line):
            problems.append("message: unprintable characters in the message")
    if result.code == 0 and "load: " not in result.stdout:
        problems.append("output: exit code 0 without the run's report")


# Kernels may sum in another order than PyTorch; the seeds' outputs are small and well scaled.
RTOL, ATOL = 1e-4, 1e-5


def compare_outputs(result: Result, out_dir: Path) -> None:
    model = result.case.compare
    assert model is not None
    expected = FILES_EXPECTED[model]
    for i, want in enumerate(expected):
        path = out_dir / f"output{i}.bin"
        if not path.exists():
            result.problems.append(f"wrong output: {path.name} not written")
            continue
        got = np.fromfile(path, dtype=want.dtype)
        if got.size != want.size:
            result.problems.append(
                f"wrong output: {path.name} has {got.size} items, not {want.size}"
            )
        elif not np.allclose(got, want.reshape(-1), rtol=RTOL, atol=ATOL, equal_nan=True):
            worst = float(np.max(np.abs(got - want.reshape(-1))))
            result.problems.append(f"wrong output: {path.name} differs from PyTorch by {worst}")


FILES_EXPECTED: dict[str, list[np.ndarray]] = {}


@dataclass
class Summary:
    runs: int = 0
    seconds: float = 0.0
    codes: Counter[str] = field(default_factory=Counter)
    compared: int = 0
    failures: list[Result] = field(default_factory=list)

    def kinds(self) -> Counter[str]:
        return Counter(p.split(":")[0] for r in self.failures for p in r.problems)

    def text(self) -> str:
        kinds = self.kinds()
        codes = ", ".join(f"exit {c}: {n}" for c, n in sorted(self.codes.items()))
        return (
            f"runs: {self.runs} in {self.seconds:.1f} s ({codes})\n"
            f"outputs compared: {self.compared}\n"
            f"crashes: {kinds['crash']}\nhangs: {kinds['hang']}\n"
            f"bad messages: {kinds['message'] + kinds['output']}\n"
            f"wrong outputs: {kinds['wrong output']}\n"
        )


def fuzz(
    runner: Path,
    corpus: Path,
    mutants: Path | None,
    seconds: float,
    seed: int,
    timeout: float = 30.0,
    jobs: int = 2,
    failure_dir: Path | None = None,
    max_runs: int | None = None,
) -> Summary:
    summary = Summary()
    with tempfile.TemporaryDirectory(prefix="kiln_runner_fuzz") as tmp:
        work = Path(tmp)
        files = prepare(work, corpus, mutants)
        FILES_EXPECTED.update(files.expected)
        start = time.monotonic()
        index = 0

        def one(i: int) -> Result:
            case = make_case(random.Random(seed * 1_000_003 + i), files)
            return run_case(runner, case, timeout, work / "runs", i)

        with ThreadPoolExecutor(jobs) as pool:
            # A run of --seconds, or of max_runs runs whatever they take.
            while index < max_runs if max_runs is not None else time.monotonic() - start < seconds:
                batch = range(index, index + jobs * 4)
                index += len(batch)
                for result in pool.map(one, batch):
                    summary.runs += 1
                    summary.codes[str(result.code)] += 1
                    if result.case.compare is not None and result.code == 0:
                        summary.compared += 1
                    if result.problems:
                        summary.failures.append(result)
                        if failure_dir is not None:
                            save_failure(failure_dir, seed, result)
        summary.seconds = time.monotonic() - start
    return summary


def save_failure(directory: Path, seed: int, result: Result) -> None:
    """The command line, its outcome and copies of the files it named (to rerun by hand)."""
    directory.mkdir(parents=True, exist_ok=True)
    n = len(list(directory.glob("failure-*.json")))
    target = directory / f"failure-{seed}-{n}"
    target.mkdir(exist_ok=True)
    for arg in result.case.argv:
        try:
            path = Path(arg)
            if arg and path.is_file() and path.stat().st_size < (64 << 20):
                shutil.copy(path, target / path.name)
        except OSError:
            pass  # not a path this machine can name
    record = {
        "argv": result.case.argv,
        "code": result.code,
        "problems": result.problems,
        "stderr": result.stderr[-8000:],
        "stdout": result.stdout[-2000:],
    }
    (directory / f"failure-{seed}-{n}.json").write_text(json.dumps(record, indent=1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runner", type=Path, required=True, help="the sanitized fuzz_runner")
    parser.add_argument("--corpus", type=Path, required=True, help="the seed .pte files")
    parser.add_argument("--mutants", type=Path, help="program_fuzz_driver --mutate-to's output")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=30, help="per run")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--failure-dir", type=Path, default=Path("runner_failures"))
    args = parser.parse_args()
    summary = fuzz(
        args.runner,
        args.corpus,
        args.mutants,
        args.seconds,
        args.seed,
        args.timeout,
        args.jobs,
        args.failure_dir,
    )
    for failure in summary.failures[:10]:
        print(f"{failure.problems}: {failure.case.argv}\n{failure.stderr[-2000:]}")
    print(summary.text(), end="")
    return 1 if summary.failures else 0


if __name__ == "__main__":
    sys.exit(main())
