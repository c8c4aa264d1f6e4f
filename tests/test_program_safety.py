"""Programs and callers that must not crash, hang or corrupt a run (issue #32): tensors without
dense CPU data, unbounded thread counts and memory plans, one Program run from several threads,
named pipes, names from the file that are not UTF-8, and a stale KILN_THREADS in a CMake cache."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import torch
from program.pte_edit import decode, encode

import kiln
from kiln import _C
from kiln._threads import MAX_THREADS
from kiln.codegen.pte import program_generated as pte

REPO_ROOT = Path(__file__).resolve().parents[1]


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = torch.nn.Linear(64, 128)
        self.head = torch.nn.Linear(128, 32)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out: torch.Tensor = self.head(torch.relu(self.hidden(x)))
        return out


@pytest.fixture(scope="module")
def mlp() -> tuple[Mlp, bytes]:
    torch.manual_seed(0)
    module = Mlp().eval()
    return module, kiln.export(module, (torch.randn(16, 64),))


# --- item 2: tensors the binding cannot read ----------------------------------------------------


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda: torch.empty(16, 64, device="meta"), "a meta tensor has no data"),
        (lambda: torch.randn(16, 64).to_sparse(), "a torch.sparse_coo tensor is not dense"),
        (
            lambda: torch.quantize_per_tensor(torch.randn(16, 64), 0.1, 0, torch.qint8),
            "a quantized tensor is not supported",
        ),
    ],
)
def test_run_refuses_tensors_without_dense_cpu_data(
    mlp: tuple[Mlp, bytes], make: Callable[[], torch.Tensor], why: str
) -> None:
    program = kiln.load(mlp[1])
    with pytest.raises(kiln.KilnError, match=f"input 0: {why}") as error:
        program.run(make())
    assert error.value.code == "InvalidArgument"


def test_the_native_binding_refuses_a_null_data_pointer(mlp: tuple[Mlp, bytes]) -> None:
    program = kiln.load(mlp[1])
    dtype = program._native.input_meta(0)[1]
    with pytest.raises(kiln.KilnError, match="input 0: the tensor has no data"):
        program._native.set_tensor_input(0, 0, [16, 64], dtype, [0, 1])


# --- item 6: bounds on threads and memory -------------------------------------------------------


@pytest.mark.parametrize("count", [MAX_THREADS + 1, 2**62, 2**70])
def test_thread_counts_beyond_the_bound_are_refused(count: int) -> None:
    with pytest.raises(ValueError, match=f"at most {MAX_THREADS}, got {count}"):
        kiln.set_num_threads(count)
    assert kiln.get_num_threads() == 1


def test_the_native_thread_bound_is_the_python_one() -> None:
    with pytest.raises(ValueError, match=f"at most {MAX_THREADS}, got {MAX_THREADS + 1}"):
        _C.set_num_threads(MAX_THREADS + 1)


def test_the_planned_memory_is_bounded_by_max_memory(mlp: tuple[Mlp, bytes]) -> None:
    with pytest.raises(kiln.KilnError, match="over the memory limit of 1000 bytes") as error:
        kiln.load(mlp[1], max_memory=1000)
    assert error.value.code == "MemoryAllocationFailed"
    kiln.load(mlp[1], max_memory=None)


def test_a_small_file_cannot_plan_gigabytes_by_default(mlp: tuple[Mlp, bytes]) -> None:
    pte = decode(mlp[1])
    pte.plan.nonConstBufferSizes = [0, 2 << 30]
    with pytest.raises(kiln.KilnError) as error:
        kiln.load(encode(pte))
    assert error.value.code == "MemoryAllocationFailed"
    assert f"memory arena 0 needs {2 << 30} bytes, over the memory limit of {1 << 30}" in str(
        error.value
    )


# --- item 7: one Program, several threads -------------------------------------------------------


def test_runs_from_several_threads_on_one_program_give_each_its_own_outputs(
    mlp: tuple[Mlp, bytes],
) -> None:
    module, data = mlp
    program = kiln.load(data)
    wrong: list[int] = []  # the seeds of the threads whose run went wrong, once per run

    def worker(seed: int) -> None:
        generator = torch.Generator().manual_seed(seed)
        for _ in range(60):
            x = torch.randn(16, 64, generator=generator)
            (out,) = program.run(x)
            if not torch.allclose(out, module(x).detach(), rtol=1e-4, atol=1e-5):
                wrong.append(seed)

    threads = [threading.Thread(target=worker, args=(seed,)) for seed in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert wrong == [], f"{len(wrong)} of 360 runs gave another thread's outputs"


def test_an_input_that_does_not_fit_is_refused_before_it_is_copied(
    mlp: tuple[Mlp, bytes],
) -> None:
    program = kiln.load(mlp[1])
    # 2^36 float elements, a view of one: making it contiguous would take 256 GiB.
    huge = torch.ones(1, 1).expand(1 << 18, 1 << 18)
    with pytest.raises(
        kiln.KilnError, match=r"input 0: .* expected \[16, 64\], got \[262144, 262144\]"
    ):
        program.run(huge)


# --- bounding and cancelling a run ----------------------------------------------------------------


def _looping(data: bytes) -> bytes:
    """The program with a first instruction that jumps to itself while a new bool input, its
    last, is False: run(x, True) is the plain program, run(x, False) loops until stopped."""
    program = decode(data)
    condition = pte.BoolT()
    condition.boolVal = True
    value = pte.EValueT()
    value.valType, value.val = pte.KernelTypes.Bool, condition
    program.plan.values.append(value)
    program.plan.inputs = [*program.plan.inputs, len(program.plan.values) - 1]
    jump = pte.JumpFalseCallT()
    jump.condValueIndex, jump.destinationInstruction = len(program.plan.values) - 1, 0
    instruction = pte.InstructionT()
    instruction.instrArgsType, instruction.instrArgs = pte.InstructionArguments.JumpFalseCall, jump
    program.plan.chains[0].instructions.insert(0, instruction)
    return encode(program)


def test_a_run_over_max_instructions_raises_invalid_state(mlp: tuple[Mlp, bytes]) -> None:
    module, data = mlp
    program = kiln.load(_looping(data))
    x = torch.randn(16, 64)
    with pytest.raises(kiln.KilnError) as error:
        program.run(x, False, max_instructions=1000)
    assert error.value.code == "InvalidState"
    assert "method 'forward': instruction 0 would exceed the run's budget of 1000" in str(
        error.value
    )
    # The plain program runs more than a handful of instructions, within the same bound.
    (out,) = program.run(x, True, max_instructions=1000)
    assert torch.allclose(out, module(x).detach(), rtol=1e-4, atol=1e-5)
    with pytest.raises(kiln.KilnError, match="instruction 1 would exceed the run's budget of 1 "):
        program.run(x, True, max_instructions=1)


@pytest.mark.parametrize("bad", [0, -1, True])
def test_max_instructions_must_be_a_positive_count(mlp: tuple[Mlp, bytes], bad: int) -> None:
    program = kiln.load(mlp[1])
    with pytest.raises(ValueError, match=f"max_instructions must be .*got {bad!r}"):
        program.run(torch.randn(16, 64), max_instructions=bad)


def test_a_cancel_while_no_run_is_in_progress_does_not_stop_the_next_run(
    mlp: tuple[Mlp, bytes],
) -> None:
    module, data = mlp
    program = kiln.load(_looping(data))
    x = torch.randn(16, 64)
    program.cancel()
    (out,) = program.run(x, True)
    assert torch.allclose(out, module(x).detach(), rtol=1e-4, atol=1e-5)


_CANCEL_SCRIPT = """
import sys, threading, time
import torch
import kiln

program = kiln.load(sys.argv[1])
x = torch.randn(16, 64)
caught = []

def loop():
    try:
        program.run(x, False, max_instructions=2**62)  # only a cancel ends it
    except kiln.KilnError as error:
        caught.append(error)

thread = threading.Thread(target=loop)
thread.start()
time.sleep(0.2)
# A cancel before the run has started does nothing: repeat it until the run ends.
deadline = time.monotonic() + 30
while thread.is_alive() and time.monotonic() < deadline:
    program.cancel()
    thread.join(0.1)
assert not thread.is_alive(), "the run was not cancelled"
(error,) = caught
print("cancelled:", error.code, error)
(out,) = program.run(x, True)
print("then ran:", list(out.shape))
"""


def test_a_run_cancelled_from_another_thread_raises_and_the_next_run_succeeds(
    mlp: tuple[Mlp, bytes], tmp_path: Path
) -> None:
    path = tmp_path / "looping.pte"
    path.write_bytes(_looping(mlp[1]))
    # A cancel that does not reach the run would loop forever: the timeout makes that a failure.
    result = subprocess.run(
        [sys.executable, "-c", _CANCEL_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "cancelled: InvalidState method 'forward': cancelled before instruction 0" in (
        result.stdout
    ), result.stdout + result.stderr
    assert "then ran: [16, 32]" in result.stdout, result.stdout + result.stderr


_CTRL_C_SCRIPT = """
import os, signal, sys, threading, time
import torch
import kiln

program = kiln.load(sys.argv[1])
x = torch.randn(16, 64)
# Ctrl-C while the main thread runs: repeated, as a SIGINT before the run starts is Python's.
stop = threading.Event()
def press_ctrl_c():
    while not stop.wait(0.2):
        os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=press_ctrl_c, daemon=True).start()
try:
    while True:
        program.run(x, False, max_instructions=2**62)  # only an interrupt ends it
except KeyboardInterrupt:
    stop.set()
    print("interrupted")
(out,) = program.run(x, True)
print("then ran:", list(out.shape))
# Python's handler is back: a later Ctrl-C interrupts Python code as usual.
try:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(5)
except KeyboardInterrupt:
    print("python's handler restored")
"""


def test_ctrl_c_interrupts_a_run_on_the_main_thread(mlp: tuple[Mlp, bytes], tmp_path: Path) -> None:
    path = tmp_path / "looping.pte"
    path.write_bytes(_looping(mlp[1]))
    result = subprocess.run(
        [sys.executable, "-c", _CTRL_C_SCRIPT, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.split("\n")[:3] == [
        "interrupted",
        "then ran: [16, 32]",
        "python's handler restored",
    ], result.stdout + result.stderr


# --- item 8a: named pipes -----------------------------------------------------------------------


def test_loading_a_named_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    code = f"import kiln\ntry:\n    kiln.load({str(pipe)!r})\nexcept kiln.KilnError as e:\n"
    code += "    print(e.code, e)\n"
    # A blocking open waits for a writer forever: the timeout turns that into a failure.
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert f"AccessFailed cannot read {pipe}: not a regular file" in result.stdout, result.stderr


# --- item 9a: names from the file that are not UTF-8 --------------------------------------------


def test_names_that_are_not_utf8_reach_messages_and_stderr_escaped(
    mlp: tuple[Mlp, bytes], tmp_path: Path
) -> None:
    assert mlp[1].count(b"aten::relu") == 1
    program = tmp_path / "bad_name.pte"
    program.write_bytes(mlp[1].replace(b"aten::relu", b"aten::r\xffl\x1b"))
    code = f"import kiln\ntry:\n    kiln.load({str(program)!r})\nexcept kiln.KilnError as e:\n"
    code += "    print(e)\n"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    stdout = result.stdout.decode("utf-8")  # strict: raw bytes would not decode
    stderr = result.stderr.decode("utf-8")
    assert "aten::r\\xffl\\x1b" in stdout, stdout + stderr
    assert "aten::r\\xffl\\x1b" in stderr, stderr


# --- item 9b: KILN_THREADS is detected at every configure ---------------------------------------


def test_kiln_threads_turns_on_when_pthreadpool_appears_after_the_first_configure(
    tmp_path: Path,
) -> None:
    if not Path("/usr/include/pthreadpool.h").exists():
        pytest.skip("needs libpthreadpool-dev installed (tools/setup.sh)")
    source = tmp_path / "project"
    source.mkdir()
    (source / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.18)\nproject(threads_probe C)\n"
        f'include("{REPO_ROOT / "cmake" / "KilnThreads.cmake"}")\n'
        'message(STATUS "probe: KILN_THREADS=${KILN_THREADS}")\n'
    )
    build = tmp_path / "build"
    hidden = "-DCMAKE_IGNORE_PATH=/usr/include;/usr/lib/x86_64-linux-gnu;/lib/x86_64-linux-gnu"

    def configure(*args: str) -> str:
        command = ["cmake", "-S", str(source), "-B", str(build), *args]
        return subprocess.run(command, capture_output=True, text=True, check=True).stdout

    assert "probe: KILN_THREADS=OFF" in configure(hidden)  # as before the package was installed
    assert "probe: KILN_THREADS=ON" in configure("-UCMAKE_IGNORE_PATH")
    assert "probe: KILN_THREADS=OFF" in configure("-DKILN_THREADS=OFF")  # the user's choice stays
    assert "probe: KILN_THREADS=OFF" in configure()
