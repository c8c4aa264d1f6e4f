"""examples/llm_decode: the decoder exported once decodes 32 greedy steps on the portable and
the ascend-then-portable backends, and its tokens and logits match the plain PyTorch reference
of the same weights; decode_main, the same loop in C++ built against the installed Kiln, gives
the same tokens."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch

import kiln
from buildtools import cmake_build, cmake_configure

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "llm_decode"
sys.path.insert(0, str(EXAMPLE))

import decode  # noqa: E402
from model import Config, random_weights  # noqa: E402

# float32 throughout; the program's kernels sum in other orders than torch's, and the largest
# difference seen over the 33 rows of logits is about 1e-5 (logits up to ~17 in magnitude).
LOGITS_TOLERANCE = {"atol": 1e-4, "rtol": 1e-4}
BACKENDS = [("portable",), ("ascend", "portable")]


@pytest.fixture(scope="module")
def exported() -> tuple[Config, bytes, decode.Decoded]:
    config = Config()
    weights = random_weights(config)
    return config, decode.export_decoder(config, weights), decode.decode_reference(config, weights)


def test_reference_tokens_are_a_meaningful_check(
    exported: tuple[Config, bytes, decode.Decoded],
) -> None:
    """Each greedy choice wins by far more than the logits' tolerance, and the tokens vary: equal
    tokens then mean the same computation, not a lucky tie-break or a stuck loop."""
    _, _, reference = exported
    top2 = reference.logits.topk(2, dim=-1).values
    assert float((top2[:, 0] - top2[:, 1]).min()) > 100 * LOGITS_TOLERANCE["atol"]
    assert len(reference.tokens) == decode.STEPS + 1
    assert len(set(reference.tokens)) > decode.STEPS // 2


@pytest.mark.parametrize("backends", BACKENDS, ids=",".join)
def test_program_decodes_like_the_reference(
    exported: tuple[Config, bytes, decode.Decoded], backends: tuple[str, ...]
) -> None:
    config, data, reference = exported
    decoded = decode.decode_program(config, data, backends)
    assert decoded.tokens == reference.tokens
    torch.testing.assert_close(decoded.logits, reference.logits, **LOGITS_TOLERANCE)


def test_program_writes_its_kv_caches_in_place(
    exported: tuple[Config, bytes, decode.Decoded],
) -> None:
    _, data, _ = exported
    operators = kiln.load(data).operators
    assert {"kiln::reshape_and_cache", "kiln::paged_attention.out"} <= set(operators)
    assert "aten::copy_" not in operators  # no copy or write-back of the caches per step


def test_decode_script_prints_equal_tokens(capsys: pytest.CaptureFixture[str]) -> None:
    threads = torch.get_num_threads()
    try:
        assert decode.main(["--steps", "4"]) == 0
    finally:
        torch.set_num_threads(threads)  # main measures on one thread
    out = capsys.readouterr().out
    assert "tokens equal: True" in out and "eager PyTorch reference" in out


@pytest.fixture(scope="module")
def decode_main(
    tmp_path_factory: pytest.TempPathFactory, exported: tuple[Config, bytes, decode.Decoded]
) -> tuple[Path, Path]:
    """decode_main built from the example's CMakeLists.txt against the installed Kiln, and the
    program it runs."""
    _, data, _ = exported
    work = tmp_path_factory.mktemp("llm_decode")
    program = work / "decoder.pte"
    program.write_bytes(data)
    cmake_configure(
        EXAMPLE,
        work / "build",
        f"-DCMAKE_PREFIX_PATH={kiln.cmake_prefix_path}",
        f"-DLLM_DECODE_PROGRAM={program}",
    )
    cmake_build(work / "build")
    return work / "build" / "decode_main", program


def run_decode_main(decode_main: tuple[Path, Path], *args: str) -> subprocess.CompletedProcess[str]:
    executable, program = decode_main
    command = [str(executable), str(program), *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def example_args(backends: tuple[str, ...]) -> list[str]:
    return [
        "--prompt", ",".join(map(str, decode.PROMPT)),
        "--block-table", ",".join(map(str, decode.BLOCK_TABLE)),
        "--steps", str(decode.STEPS),
        "--backends", ",".join(backends),
    ]  # fmt: skip


@pytest.mark.parametrize("backends", BACKENDS, ids=",".join)
def test_decode_main_gives_the_python_loops_tokens(
    decode_main: tuple[Path, Path],
    exported: tuple[Config, bytes, decode.Decoded],
    backends: tuple[str, ...],
) -> None:
    config, data, _ = exported
    result = run_decode_main(decode_main, *example_args(backends))
    assert result.returncode == 0, result.stderr
    expected = decode.decode_program(config, data, backends).tokens
    assert f"tokens: {' '.join(map(str, expected))}\n" in result.stdout
    assert "decode step:" in result.stdout


def test_decode_main_reports_bad_arguments(decode_main: tuple[Path, Path]) -> None:
    cases = [
        (["--prompt", "1,2"], "--block-table is required"),
        (["--prompt", "1,x", "--block-table", "0,1,2"], "--prompt needs tokens"),
        (["--prompt", "1", "--block-table", "0,1,2", "--steps", "99"], "do not fit"),
        (["--prompt", "1", "--block-table", "0,1", "--steps", "4"], "input 3 is not the decoder.s"),
        (["--prompt", "1", "--block-table", "0,1,2", "--backends", "gpu"], "--backends needs"),
        (["--prompt", "1", "--block-table", "0,1,9"], "slot_mapping.*past the caches"),
        (["--prompt", "999", "--block-table", "0,1,2"], "index 999"),
    ]
    for args, message in cases:
        result = run_decode_main(decode_main, *args)
        assert result.returncode != 0, args
        assert re.search(message, result.stderr), (args, result.stderr)
