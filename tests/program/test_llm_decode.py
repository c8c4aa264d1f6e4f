"""examples/llm_decode: the decoder exported once decodes 32 greedy steps on the portable and
the ascend-then-portable backends, and its tokens and logits match the plain PyTorch reference
of the same weights."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch

import kiln

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
