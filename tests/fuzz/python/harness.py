"""Fuzzes Kiln's Python bindings (kiln.call_op, kiln.load, Program.run) on a kiln._C built with
AddressSanitizer and UndefinedBehaviorSanitizer (tests/fuzz, target kiln_python_fuzz).

    python tests/fuzz/python/harness.py --module-dir BUILD/python_module --corpus DIR \\
        [--seconds S | --iterations N] [--seed K] [--timeout T] [--mutants DIR]

Input i depends only on --seed and i (`--first i --iterations 1` replays it). The inputs run in
a worker process (libasan preloaded, the sanitized module imported as kiln._C), restarted after
a crash (a sanitizer report, an abort, a signal) or a hang (an input over --timeout seconds).
Kiln must compute or raise KilnError, TypeError, ValueError or IndexError; where torch has the
same operator and the case is comparable, kiln's outs must hold torch's values. The summary
counts, per surface, the inputs and their outcomes; the exit status is 1 when there was any
crash, hang, wrong result or other exception. --inject uaf@I,wrong@J,hang@K replaces inputs
with deliberate faults, to show that each kind of finding is caught.
"""

from __future__ import annotations

import argparse
import os
import random
import select
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings
from collections import Counter
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1]), str(HERE.parents[1] / "program")]

import sanitized  # noqa: E402
from paired_input import split_input  # noqa: E402

SURFACES = ("call_op", "load", "run")
ALLOWED = ("KilnError", "ProgramLoadError", "TypeError", "ValueError", "IndexError")
FINDINGS = ("crash", "hang", "wrong", "unexpected")
STARTUP_SECONDS = 180.0  # importing torch and the sanitized module on a loaded machine


def _options(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--module-dir", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument(
        "--mutants",
        type=Path,
        help="more programs to mutate (e.g. the C++ driver's --mutate-to output)",
    )
    parser.add_argument("--seconds", type=float, default=0.0)
    parser.add_argument("--iterations", type=int, default=0)
    parser.add_argument("--first", type=int, default=0, help="index of the first input")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds per input")
    parser.add_argument("--inject", default="", help="kind@index,... (uaf, wrong, hang)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--deadline", type=float, default=0.0, help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    if not options.worker and not options.seconds and not options.iterations:
        parser.error("give --seconds or --iterations")
    return options


# ---- The worker: runs inputs, announces each on stdout ----------------------------------------


class Worker:
    def __init__(self, options: argparse.Namespace) -> None:
        self.options = options
        self.seed = options.seed
        self.inject = dict(
            (int(index), kind)
            for kind, index in (item.split("@") for item in options.inject.split(",") if item)
        )
        self.scratch = Path(tempfile.mkdtemp(prefix="kiln-pyfuzz-"))
        programs = sorted(options.corpus.glob("*.pte"))
        self.seeds: dict[str, bytes] = {p.name: p.read_bytes() for p in programs}
        if not self.seeds:
            raise SystemExit(f"no .pte seeds in {options.corpus}")
        # The data files (.ptd) beside the programs that keep their weights outside.
        self.seed_data: dict[str, bytes] = {
            p.name: p.with_suffix(".ptd").read_bytes()
            for p in programs
            if p.with_suffix(".ptd").exists()
        }
        extra = sorted(options.mutants.glob("*.pte")) if options.mutants else []
        self.mutants = [split_input(p.read_bytes()) for p in extra]
        self.modules: dict[str, Any] = {}

    def emit(self, line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def finding(self, index: int, what: str, detail: str) -> None:
        sys.stderr.write(f"FINDING input {index} (seed {self.seed}): {what}\n{detail}\n")
        sys.stderr.flush()

    def run(self, start: int) -> None:
        index = start
        while True:
            if self.options.iterations and index >= self.options.first + self.options.iterations:
                break
            if self.options.deadline and time.time() >= self.options.deadline:
                break
            rng = random.Random(f"{self.seed}:{index}")
            surface = rng.choices(SURFACES, weights=(5, 2, 3))[0]
            if index in self.inject:
                surface = "inject"
            self.emit(f"B {index} {surface}")
            try:
                outcome = getattr(self, f"fuzz_{surface}")(rng, index)
            except Exception as error:  # the harness's own failure: a finding to look at
                outcome = f"unexpected:{type(error).__name__}"
                self.finding(index, "harness error", traceback.format_exc())
            self.emit(f"E {index} {surface} {outcome}")
            index += 1
        self.emit("DONE")

    def _classify(self, index: int, error: BaseException, context: str) -> str:
        name = type(error).__name__
        if any(cls.__name__ in ALLOWED for cls in type(error).__mro__):  # KilnTypeError too
            return f"error:{name}"
        detail = "".join(traceback.format_exception(error))
        self.finding(index, f"{name} from {context}", detail)
        return f"unexpected:{name}"

    # -- call_op

    def fuzz_call_op(self, rng: random.Random, index: int) -> str:
        import op_cases

        import kiln
        from kiln._manifest import operators

        ops = operators()
        op = ops[rng.choice(sorted(ops))]
        self.emit(f"P {index} torch {op.name}")
        case, expected = op_cases.make_case(rng, op)
        if op_cases.huge_result(op, case.inputs):
            return "skipped:huge-out"
        if op_cases.huge_copy(case.inputs):
            return "skipped:huge-copy"
        name: Any = op.name
        if rng.random() < 0.02:
            name = rng.choice(["aten::add", "aten::nope.out", "add.out", "", "aten::add.out.x", 3])
            expected = {}
        backend = rng.choice([None] * 12 + ["portable", "ascend", "aten", "nope"])
        allow_fallback = rng.random() < 0.9
        self.emit(f"P {index} kiln {op.name}")
        try:
            result = kiln.call_op(
                name,
                *case.args,
                out=case.out,
                backend=backend,
                allow_fallback=allow_fallback,
                **case.kwargs,
            )
        except Exception as error:
            return self._classify(index, error, f"call_op({op.name})")
        # call_op returns the outs it wrote (self for an in-place op).
        if case.out is not None and isinstance(case.out, torch_tensor_type()):
            if result is not case.out:
                self.finding(index, "wrong result", f"{op.name} did not return its out")
                return "wrong"
        for arg_name, want in expected.items():
            got = case.outs.get(arg_name, case.inputs.get(arg_name))
            why = op_cases.mismatch(got, want)
            if why:
                self.finding(
                    index,
                    "wrong result",
                    f"{op.name} {arg_name}: {why}\n  inputs: {_describe(case.inputs)}\n"
                    f"  outs: {_describe(case.outs)}",
                )
                return "wrong"
        return "computed+compared" if expected else "computed"

    # -- load

    def _program_bytes(self, rng: random.Random) -> tuple[bytes, bytes | None, bool]:
        """A program and its data file (None for none), either of them perhaps mutated."""
        import program_cases

        if self.mutants and rng.random() < 0.5:
            base, base_data = rng.choice(self.mutants)
        else:
            name = rng.choice(sorted(self.seeds))
            base, base_data = self.seeds[name], self.seed_data.get(name)
        if rng.random() < 0.1:
            return base, base_data, False
        if base_data is not None and rng.random() < 0.5:
            others = list(self.seed_data.values())
            return base, program_cases.mutate(rng, base_data, others), True
        return program_cases.mutate(rng, base, list(self.seeds.values())), base_data, True

    def _data_source(self, rng: random.Random, index: int, data: bytes | None) -> Any:
        """How kiln.load gets the data file: a path (mapped) or bytes, now and then one that is
        not a data file, or a data file the program does not need."""
        if data is None:
            if rng.random() > 0.05 or not self.seed_data:
                return None
            data = rng.choice(sorted(self.seed_data.values()))
        via = rng.random()
        if via < 0.45:
            path = self.scratch / f"{index}.ptd"
            path.write_bytes(data)
            return path if rng.random() < 0.5 else str(path)
        if via < 0.95:
            return data
        return rng.choice(
            [bytearray(data), self.scratch, "/dev/null", str(self.scratch / "missing.ptd")]
        )

    def fuzz_load(self, rng: random.Random, index: int) -> str:
        import program_cases

        import kiln

        data, data_file, _ = self._program_bytes(rng)
        data_source = self._data_source(rng, index, data_file)
        via = rng.random()
        source: Any = data
        if via < 0.45:  # a path: the file is mapped
            path = self.scratch / f"{index}.pte"
            path.write_bytes(data)
            source = path if rng.random() < 0.5 else str(path)
        elif via < 0.5:
            source = rng.choice(
                [
                    bytearray(data),
                    memoryview(data),
                    self.scratch,
                    "/dev/null",
                    str(self.scratch / "missing.pte"),
                    None,
                ]
            )
        self.emit(f"P {index} kiln")
        try:
            program = kiln.load(
                source,
                method=program_cases.method(rng),
                backends=program_cases.backends(rng),
                max_memory=program_cases.max_memory(rng),
                data=data_source,
            )
        except Exception as error:
            return self._classify(index, error, "load")
        finally:
            for used in (source, data_source):
                if isinstance(used, (str, Path)) and Path(used).name.startswith(f"{index}.pt"):
                    Path(used).unlink(missing_ok=True)
        # A mutant that loads runs once, bounded: a mutated plan may jump back.
        metas = [program._native.input_meta(i) for i in range(program._native.num_inputs())]
        inputs, _ = program_cases.run_inputs(rng, metas)
        try:
            program.run(*inputs, max_instructions=10_000)
        except Exception as error:
            outcome = self._classify(index, error, "run of a loaded mutant")
            return f"loaded+run-{outcome}"
        return "loaded+ran"

    # -- run

    def fuzz_run(self, rng: random.Random, index: int) -> str:
        import program_cases

        import kiln

        name = rng.choice(sorted(self.seeds))
        model_name = name.split(".")[0]
        try:
            program = kiln.load(self.seeds[name], data=self.seed_data.get(name))
        except Exception as error:
            return "seed-" + self._classify(index, error, f"load of seed {name}")
        native = program._native
        metas = [native.input_meta(i) for i in range(native.num_inputs())]
        inputs, exact = program_cases.run_inputs(rng, metas)
        limit = program_cases.max_instructions(rng) if rng.random() < 0.3 else None
        mode = rng.choice(["once", "once", "twice", "threads", "cancel", "native"])
        stateful = model_name == "accumulator"
        self.emit(f"P {index} kiln")
        try:
            if mode == "native":
                return self._native_calls(rng, index, program)
            if mode == "cancel":
                timer = threading.Timer(rng.choice([0.0, 0.0005, 0.002]), program.cancel)
                timer.start()
                try:
                    program.run(*inputs, max_instructions=limit)
                finally:
                    timer.join()
                return "computed"
            if mode == "threads":
                return self._two_threads(index, program, inputs, limit, exact and not stateful)
            first = program.run(*inputs, max_instructions=limit, profile=rng.random() < 0.2)
            if mode == "twice":
                second = program.run(*inputs, max_instructions=limit)
                if not stateful and not _same(first, second):
                    self.finding(index, "wrong result", f"{name}: a second run differs")
                    return "wrong"
        except Exception as error:
            return self._classify(index, error, f"run of {name}")
        # An int8 seed (its exporter's name ends in "_int8", tests/fuzz/corpus.py) answers what
        # the quantized model does, near the float model's answer but not within its tolerance.
        quantized = name.split(".")[1].endswith("_int8")
        if exact and not stateful and not quantized and limit is None:
            why = self._against_eager(model_name, inputs, first)
            if why:
                self.finding(index, "wrong result", f"{name}: {why}")
                return "wrong"
            return "computed+compared"
        return "computed"

    def _two_threads(
        self, index: int, program: Any, inputs: list[Any], limit: Any, deterministic: bool
    ) -> str:
        results: list[Any] = [None, None]

        def work(slot: int) -> None:
            try:
                results[slot] = program.run(*inputs, max_instructions=limit)
            except Exception as error:
                results[slot] = error

        threads = [threading.Thread(target=work, args=(slot,)) for slot in (0, 1)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        outcomes = []
        for result in results:
            if isinstance(result, BaseException):
                outcomes.append(self._classify(index, result, "run from two threads"))
        if any(o.startswith("unexpected") for o in outcomes):
            return next(o for o in outcomes if o.startswith("unexpected"))
        if outcomes:
            return outcomes[0]
        if deterministic and not _same(results[0], results[1]):
            self.finding(index, "wrong result", "two threads' runs of one program differ")
            return "wrong"
        return "computed"

    def _native_calls(self, rng: random.Random, index: int, program: Any) -> str:
        """The native Program's index-taking calls with out-of-range indexes and short buffers
        (valid memory always: the pointer itself is the caller's contract)."""
        import torch

        native = program._native
        bad = rng.choice(
            [-1, native.num_inputs(), native.num_outputs(), 2**31, 2**63 - 1, -(2**63)]
        )
        call = rng.randrange(4)
        try:
            if call == 0:
                native.input_meta(bad)
            elif call == 1:
                native.output_meta(bad)
            elif call == 2:
                buffer = torch.zeros(4, dtype=torch.uint8)
                native.copy_output(bad, buffer.data_ptr(), 4)
            else:
                # A run first, so that there is an output to copy; then a buffer too small.
                program.run(*program_cases_inputs(rng, native))
                buffer = torch.zeros(1, dtype=torch.uint8)
                native.copy_output(0, buffer.data_ptr(), rng.choice([0, 1]))
        except Exception as error:
            return self._classify(index, error, f"native call {call}")
        return "computed"

    def _against_eager(self, model_name: str, inputs: list[Any], outputs: Any) -> str:
        import torch
        from models import zoo_model

        if model_name not in self.modules:
            self.modules[model_name] = zoo_model(model_name).create()[0]
        with torch.no_grad():
            want = self.modules[model_name](*inputs)
        wants = want if isinstance(want, tuple) else (want,)
        if len(wants) != len(outputs):
            return f"{len(outputs)} outputs, eager torch has {len(wants)}"
        for i, (got, expected) in enumerate(zip(outputs, wants, strict=True)):
            if tuple(got.shape) != tuple(expected.shape):
                return f"output {i}: shape {tuple(got.shape)} != eager {tuple(expected.shape)}"
            if not torch.allclose(got.double(), expected.double(), rtol=1e-3, atol=1e-4):
                diff = (got.double() - expected.double()).abs().max().item()
                return f"output {i}: differs from eager torch by up to {diff}"
        return ""

    # -- injected faults

    def fuzz_inject(self, rng: random.Random, index: int) -> str:
        import op_cases
        import torch

        import kiln
        from kiln._manifest import operators

        kind = self.inject[index]
        if kind == "hang":
            time.sleep(self.options.timeout * 4 + 10)
            return "computed"
        if kind == "wrong":  # a correct call whose out is then spoiled: the check must see it
            a, b = torch.ones(3), torch.full((3,), 2.0)
            out = kiln.call_op("aten::add.out", a, b, out=torch.empty(0))
            out[1] += 1
            op = operators()["aten::add.out"]
            expected = op_cases._torch_outs(
                op_cases.torch_packet(op), op, {"self": a, "other": b}, torch.float32
            )
            why = op_cases.mismatch(out, expected["out"])
            if why:
                self.finding(index, "wrong result (injected)", why)
                return "wrong"
            return "computed"
        if kind == "uaf":  # a program input bound to freed memory: ASan must report the read
            name = next(n for n in sorted(self.seeds) if n.startswith("mlp."))
            program = kiln.load(self.seeds[name])
            native = program._native
            _, code, sizes, dim_order, _ = native.input_meta(0)
            freed = torch.ones(list(sizes))
            address = freed.data_ptr()
            del freed
            native.set_tensor_input(0, address, list(sizes), code, list(dim_order))
            native.acquire()
            native.execute(False, 0)
            native.release()
            return "computed"
        raise ValueError(f"unknown fault {kind!r}")


def program_cases_inputs(rng: random.Random, native: Any) -> list[Any]:
    import torch

    from kiln._convert import DTYPE_CODES

    dtypes = {code: kind for kind, code in DTYPE_CODES.items()}
    inputs: list[Any] = []
    for i in range(native.num_inputs()):
        kind, code, sizes, *_ = native.input_meta(i)
        inputs.append(torch.zeros(list(sizes), dtype=dtypes[code]) if kind == "Tensor" else 1)
    return inputs


def torch_tensor_type() -> type:
    import torch

    return torch.Tensor


def _same(a: Any, b: Any) -> bool:
    import torch

    return len(a) == len(b) and all(
        x.shape == y.shape and bool(torch.equal(x, y) or torch.allclose(x, y, equal_nan=True))
        for x, y in zip(a, b, strict=True)
    )


def _describe(values: dict[str, Any]) -> str:
    import torch

    def one(v: Any) -> str:
        if isinstance(v, torch.Tensor):
            strides = v.stride() if v.layout == torch.strided else "-"
            return f"Tensor{tuple(v.shape)} {v.dtype} strides={strides} {v.layout} {v.device}"
        if isinstance(v, (list, tuple)):
            return "[" + ", ".join(one(x) for x in v) + "]"
        return repr(v)[:80]

    return ", ".join(f"{k}={one(v)}" for k, v in values.items())


def worker_main(options: argparse.Namespace) -> int:
    warnings.simplefilter("ignore")
    module = sanitized.install(options.module_dir)
    import torch

    import kiln._C  # noqa: F401  (the sanitized one, from sys.modules)

    torch.set_num_threads(1)
    sys.stdout.write(f"READY {module.__file__}\n")
    sys.stdout.flush()
    Worker(options).run(options.first)
    return 0


# ---- The parent: starts and watches workers, counts outcomes ----------------------------------


class Parent:
    def __init__(self, options: argparse.Namespace, argv: list[str]) -> None:
        self.options = options
        self.argv = argv
        self.counts: dict[str, Counter[str]] = {s: Counter() for s in (*SURFACES, "inject")}
        self.findings: Counter[str] = Counter()
        self.deadline = time.time() + options.seconds if options.seconds else 0.0
        self.module = ""
        self.env = sanitized.sanitized_environment(options.module_dir)

    def _spawn(self, first: int) -> subprocess.Popen[bytes]:
        argv = [a for a in self.argv]
        command = [
            sys.executable,
            str(Path(__file__).resolve()),
            *argv,
            "--worker",
            "--first",
            str(first),
        ]
        if self.options.iterations:
            left = self.options.first + self.options.iterations - first
            command += ["--iterations", str(left)]
        if self.deadline:
            command += ["--deadline", repr(self.deadline)]
        return subprocess.Popen(command, stdout=subprocess.PIPE, env=self.env)

    def _finished(self, index: int) -> bool:
        if self.options.iterations and index >= self.options.first + self.options.iterations:
            return True
        return bool(self.deadline) and time.time() >= self.deadline

    def run(self) -> int:
        index = self.options.first
        while not self._finished(index):
            index = self._one_worker(index)
            if index < 0:
                return 2
        return self.report()

    def _one_worker(self, first: int) -> int:
        """Runs a worker from input `first` until it ends; returns the next input to run (after
        a crash or hang, the one after it), -1 if the worker could not start."""
        process = self._spawn(first)
        assert process.stdout is not None
        current: tuple[int, str] | None = None
        phase = ""
        started = time.time()
        ready = False
        next_index = first
        # Lines are read from the pipe's descriptor, unbuffered: a buffered reader could hold
        # the next line while select() reports nothing to read.
        fd = process.stdout.fileno()
        pending = b""
        chunk: bytes | None = None
        while True:
            limit = self.options.timeout if ready else STARTUP_SECONDS
            if b"\n" not in pending:
                readable, _, _ = select.select([fd], [], [], 1.0)
                chunk = os.read(fd, 1 << 16) if readable else None
                if chunk:
                    pending += chunk
                    continue
            if b"\n" not in pending and chunk is None:
                if time.time() - started > limit:
                    process.kill()
                    process.wait()
                    if not ready:
                        print(f"worker did not start in {limit:.0f} s", file=sys.stderr)
                        return -1
                    if current is None:  # stuck between inputs: charged to the next one
                        current, phase = (next_index, "between inputs"), "between inputs"
                    self._record(current, "hang", phase)
                    return current[0] + 1
                continue
            if b"\n" not in pending:  # the worker ended (end of file)
                code = process.wait()
                if current is not None:
                    self._record(current, f"crash (exit status {code})", phase)
                    return current[0] + 1
                if not ready or code != 0:
                    print(f"worker failed before any input (status {code})", file=sys.stderr)
                    return -1
                return next_index
            raw, _, pending = pending.partition(b"\n")
            if not raw.strip():
                continue
            word, *rest = raw.decode(errors="replace").split()
            if word == "READY":
                ready, self.module, started = True, rest[0], time.time()
            elif word == "B":
                current, phase, started = (int(rest[0]), rest[1]), "", time.time()
            elif word == "P":
                phase = " ".join(rest[1:])
            elif word == "E":
                index, surface, outcome = int(rest[0]), rest[1], rest[2]
                self.counts[surface][outcome] += 1
                kind = outcome.split(":")[0].split("-")[-1]
                if kind in FINDINGS:
                    self.findings[kind] += 1
                current, next_index, started = None, index + 1, time.time()
            elif word == "DONE":
                process.wait()
                return next_index

    def _record(self, current: tuple[int, str], what: str, phase: str) -> None:
        index, surface = current
        kind = what.split()[0]
        # A crash inside torch's own reference call is torch's, not the bindings'; still counted.
        where = f" in {phase}" if phase else ""
        counts = self.counts.setdefault(surface, Counter())
        counts[kind + ("-in-torch" if phase.startswith("torch") else "")] += 1
        self.findings[kind] += 1
        print(
            f"{kind}: input {index} ({surface}{where}): {what}; replay with --seed "
            f"{self.options.seed} --first {index} --iterations 1",
            flush=True,
        )

    def report(self) -> int:
        print(f"module: {self.module}")
        total = 0
        for surface, counts in self.counts.items():
            inputs = sum(counts.values())
            if surface == "inject" and not inputs:
                continue
            total += inputs
            listed = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            print(f"{surface}: {inputs} inputs ({listed})")
        print(f"inputs: {total}")
        for kind in FINDINGS:
            print(f"{kind}: {self.findings[kind]}")
        return 1 if sum(self.findings.values()) else 0


def main(argv: list[str]) -> int:
    options = _options(argv)
    if options.worker:
        return worker_main(options)
    parent_argv = []
    skip = False
    for arg in argv:  # the worker gets the same options but its own range
        if skip:
            skip = False
            continue
        if arg in ("--first", "--iterations", "--seconds"):
            skip = True
            continue
        parent_argv.append(arg)
    return Parent(options, parent_argv).run()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
