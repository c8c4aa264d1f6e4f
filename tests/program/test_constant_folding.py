"""Constant folding at load on programs ExecuTorch's exporter writes: the transposes of linear
weights it leaves (permute_copy) run once at load and are skipped by every run, with results
bit-identical to runs without folding; buffers a program mutates are never folded; the program
file stays unchanged; max_memory bounds the folded results (the calls past it run at each run)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import torch
from executorch_export import pte_bytes
from models import zoo_model

import kiln

FOLDED = "folded"


def _random_inputs(like: tuple[torch.Tensor, ...], seed: int) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randn(t.shape, generator=generator) for t in like)


@pytest.fixture(scope="module")
def mlp_pte() -> tuple[bytes, tuple[torch.Tensor, ...]]:
    module, inputs = zoo_model("mlp").create()
    return pte_bytes(module, inputs), inputs


@pytest.fixture(scope="module")
def block_pte() -> tuple[bytes, tuple[torch.Tensor, ...]]:
    module, inputs = zoo_model("transformer_block").create()
    return pte_bytes(module, inputs), inputs


def test_weight_transposes_fold_and_runs_skip_them(
    mlp_pte: tuple[bytes, tuple[torch.Tensor, ...]],
) -> None:
    data, inputs = mlp_pte
    program = kiln.load(data)
    rows = program.instructions()
    assert [row.op for row in rows if row.backend == FOLDED] == ["aten::permute_copy.out"] * 2
    # Both weights (32x16 and 8x32 float32), transposed, are what folding keeps.
    assert program.folded.instructions == 2
    assert program.folded.bytes == (32 * 16 + 8 * 32) * 4
    assert program.folded.over_limit == 0
    program.run(*inputs, profile=True)
    profile = program.last_profile()
    assert [row.backend for row in profile if row.op == "aten::permute_copy.out"] == [FOLDED] * 2
    assert all(row.ns == 0 for row in profile if row.backend == FOLDED)
    assert {row.backend for row in profile if row.op == "aten::addmm.out"} == {"portable"}
    assert FOLDED in str(profile)


@pytest.mark.parametrize("model", ["mlp", "transformer_block"])
def test_results_are_bit_identical_to_runs_without_folding(model: str) -> None:
    module, inputs = zoo_model(model).create()
    data = pte_bytes(module, inputs)
    folded = kiln.load(data)
    unfolded = kiln.load(data, fold_constants=False)
    assert folded.folded.instructions > 0
    assert unfolded.folded.instructions == 0
    assert all(row.backend != FOLDED for row in unfolded.instructions())
    for seed in range(3):
        sample = _random_inputs(inputs, seed)
        first = folded.run(*sample)
        second = folded.run(*sample)
        expected = unfolded.run(*sample)
        for got, again, want in zip(first, second, expected, strict=True):
            assert torch.equal(got, want)
            assert torch.equal(again, want)


def test_the_transformer_block_folds_every_weight_transpose(
    block_pte: tuple[bytes, tuple[torch.Tensor, ...]],
) -> None:
    data, _ = block_pte
    rows = kiln.load(data).instructions()
    transposes = [row for row in rows if row.op == "aten::permute_copy.out"]
    weights = [row for row in transposes if row.backend == FOLDED]
    # Four linear layers (qkv, proj, ff1, ff2): their weights' transposes fold; the transposes of
    # activations (attention heads) read the input and run.
    assert len(weights) == 4
    assert len(transposes) > len(weights)


def test_the_program_file_is_unchanged_by_load_and_runs(
    tmp_path: Path, mlp_pte: tuple[bytes, tuple[torch.Tensor, ...]]
) -> None:
    data, inputs = mlp_pte
    path = tmp_path / "mlp.pte"
    path.write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    program = kiln.load(path)  # mapped read-only
    assert program.folded.instructions == 2
    program.run(*inputs)
    program.run(*_random_inputs(inputs, 7))
    assert hashlib.sha256(path.read_bytes()).hexdigest() == digest


def test_max_memory_bounds_the_folded_results(
    mlp_pte: tuple[bytes, tuple[torch.Tensor, ...]],
) -> None:
    data, inputs = mlp_pte
    full = kiln.load(data)
    unbounded = kiln.load(data, max_memory=None)
    assert unbounded.folded == full.folded
    expected = kiln.load(data, fold_constants=False).run(*inputs)
    # Find the smallest bound that loads at all (the plan), then step up: the folds that do not
    # fit are left to the runs and counted, and the results never change.
    low, high = 0, 1 << 20
    while low < high:
        middle = (low + high) // 2
        try:
            kiln.load(data, max_memory=middle)
            high = middle
        except kiln.KilnError:
            low = middle + 1
    plan_only = kiln.load(data, max_memory=low)
    assert plan_only.folded.instructions == 0
    assert plan_only.folded.over_limit == 2  # the two weight transposes
    assert all(row.backend != FOLDED for row in plan_only.instructions())
    room_for_all = kiln.load(data, max_memory=low + full.folded.peak_bytes)
    assert room_for_all.folded == full.folded
    partial = kiln.load(data, max_memory=low + full.folded.peak_bytes - 1)
    assert partial.folded.over_limit >= 1
    assert partial.folded.instructions + partial.folded.over_limit == 2
    for program in (plan_only, partial, room_for_all):
        for got, want in zip(program.run(*inputs), expected, strict=True):
            assert torch.equal(got, want)


class ConstantUpdates(torch.nn.Module):
    """Adds a function of a weight to a buffer at each run: the function of the weight folds,
    the buffer's update (which reads the buffer's state) must run every time."""

    def __init__(self) -> None:
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(3, 4), requires_grad=False)
        self.register_buffer("total", torch.arange(12, dtype=torch.float32).reshape(3, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.total.add_(self.weight * 2.0)
        return self.total + x


def test_a_mutated_buffer_is_never_folded() -> None:
    torch.manual_seed(0)
    module = ConstantUpdates().eval()
    inputs = (torch.randn(3, 4),)
    data = pte_bytes(module, inputs)
    folded = kiln.load(data)
    unfolded = kiln.load(data, fold_constants=False)
    rows = folded.instructions()
    assert [row.op for row in rows if row.backend == FOLDED] == ["aten::mul.out"]
    assert folded.folded.instructions == 1
    assert "aten::copy_" in folded.operators  # the buffer's write-back, which runs
    with torch.no_grad():
        reference = ConstantUpdates()
        reference.load_state_dict(module.state_dict())
    for run in range(3):
        with torch.no_grad():
            expected = reference(*inputs)
        (got,) = folded.run(*inputs)
        (again,) = unfolded.run(*inputs)
        torch.testing.assert_close(got, expected, msg=f"run {run}")
        assert torch.equal(got, again)
