"""bench/serving.py's correctness check on its tiny model (no timing): Kiln's paged decoder
gives eager PyTorch's greedy tokens and logits; llama.cpp, when installed (the `bench` extra),
runs the same model from its GGUF; without it the report says the row was skipped."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from buildtools import REPO_ROOT, load_script


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    return load_script(REPO_ROOT / "bench" / "serving.py", "serving_bench")


@pytest.mark.parametrize("rope", ["neox", "gptj"])
def test_tiny_serving_batch_matches_eager(bench: ModuleType, rope: str, tmp_path: Path) -> None:
    argv = ["--tiny", "--steps", "4", "--no-timing", "--rope", rope, "--precisions", "F32"]
    report = bench.benchmark([*argv, "--gguf-dir", str(tmp_path)])
    checks = {check.runtime: check for check in report.checks}
    kiln_check = checks["kiln F32"]
    assert kiln_check.tokens_equal == kiln_check.tokens == 5 * 8
    assert kiln_check.prefill_max_diff < bench.LOGIT_TOLERANCE
    assert kiln_check.decode_max_diff < bench.LOGIT_TOLERANCE
    assert not report.rows
    if importlib.util.find_spec("llama_cpp") and importlib.util.find_spec("gguf"):
        llama = checks["llama.cpp F32"]
        assert llama.tokens_equal == llama.tokens
        assert llama.prefill_max_diff < bench.LOGIT_TOLERANCE
    else:
        assert any(note.startswith("llama.cpp skipped") for note in report.notes)
    assert "| kiln F32 | 40/40 |" in report.text
