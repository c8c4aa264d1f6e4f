"""Kiln's operators through torch.export, kiln.export and kiln.load: functional forms become out
variant calls, operators that write their arguments (auto_functionalized in the graph) run in
place, a KV cache held in a module buffer keeps its state across runs, and the program's results
match eager PyTorch on the portable and the emulated Ascend backends."""

from __future__ import annotations

import llm_reference as ref
import pytest
import torch
from llm_checks import assert_near
from llm_inputs import BLOCK_SIZE, HEAD_SIZE, cos_sin_cache, int8_linear, paged, randn

import kiln
import kiln.torch_ops  # noqa: F401  (registers torch.ops.kiln)

ops = torch.ops.kiln
BACKENDS = [("portable",), ("ascend", "portable")]


class Block(torch.nn.Module):
    """One decoder step of attention and MLP, written with Kiln's operators."""

    def __init__(self) -> None:
        super().__init__()
        hidden = 4 * HEAD_SIZE
        self.norm = torch.nn.Parameter(randn(hidden, seed=10))
        weight, scales, bias = int8_linear(1, hidden, 2 * hidden)[1:]
        self.register_buffer("up_weight", weight)
        self.register_buffer("up_scales", scales)
        self.register_buffer("up_bias", bias)
        self.register_buffer("cos_sin", cos_sin_cache(64, HEAD_SIZE))

    def forward(
        self,
        x: torch.Tensor,
        positions: torch.Tensor,
        key_cache: torch.Tensor,
        value_cache: torch.Tensor,
        tables: torch.Tensor,
        lengths: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        h = ops.rms_norm(x, self.norm, 1e-6)
        q, _ = ops.rotary_embedding(positions, h, None, HEAD_SIZE, self.cos_sin, True)
        attended = ops.paged_attention(
            q.view(-1, 4, HEAD_SIZE), key_cache, value_cache, tables, lengths, HEAD_SIZE**-0.5
        )
        up = ops.weight_int8_linear(
            attended.view(x.shape), self.up_weight, self.up_scales, self.up_bias
        )
        return ops.silu_and_mul(up), q


def block_inputs() -> tuple[torch.Tensor, ...]:
    query, key_cache, value_cache, tables, lengths = paged([5, 9, 2])
    return (
        randn(3, 4 * HEAD_SIZE, seed=11),
        torch.tensor([4, 8, 1]),
        key_cache,
        value_cache,
        tables,
        lengths,
    )


@pytest.mark.parametrize("backends", BACKENDS)
def test_functional_ops_round_trip(backends: tuple[str, ...]) -> None:
    module, inputs = Block(), block_inputs()
    program = kiln.load(kiln.export(module, inputs), backends=backends)
    assert set(program.operators) == {
        "kiln::rms_norm.out",
        "kiln::rotary_embedding.out",
        "kiln::paged_attention.out",
        "kiln::weight_int8_linear.out",
        "kiln::silu_and_mul.out",
    }
    # Eager on the program's first backend: the same kernels, so the same values exactly.
    with torch.no_grad(), kiln.torch_ops.use_backend(backends[0]):
        expected = module(*inputs)
    for actual, wanted in zip(program.run(*inputs), expected, strict=True):
        assert_near(actual, wanted, 0)


def test_exported_graph_calls_the_functional_forms() -> None:
    exported = torch.export.export(Block(), block_inputs())
    targets = {str(n.target) for n in exported.graph.nodes if n.op == "call_function"}
    assert {"kiln.rms_norm.default", "kiln.paged_attention.default"} <= targets


class Cache(torch.nn.Module):
    """A KV cache in module buffers, written by reshape_and_cache and read by paged_attention."""

    def __init__(self, blocks: int = 4) -> None:
        super().__init__()
        shape = (blocks, BLOCK_SIZE, 2, HEAD_SIZE)
        self.register_buffer("key_cache", torch.zeros(shape))
        self.register_buffer("value_cache", torch.zeros(shape))

    def forward(
        self,
        query: torch.Tensor,
        kv: torch.Tensor,
        slots: torch.Tensor,
        tables: torch.Tensor,
        lengths: torch.Tensor,
    ) -> torch.Tensor:
        key, value = kv.unbind(0)
        ops.reshape_and_cache(key, value, self.key_cache, self.value_cache, slots)
        return ops.paged_attention(query, self.key_cache, self.value_cache, tables, lengths, 0.25)


def cache_step(step: int) -> tuple[torch.Tensor, ...]:
    """Step `step` of two sequences (blocks 0-1 and 2-3), one token each."""
    tables = torch.tensor([[0, 1], [2, 3]], dtype=torch.int32)
    slots = torch.tensor([step, 2 * BLOCK_SIZE + step])
    kv = randn(2, 2, 2, HEAD_SIZE, seed=20 + step)
    query = randn(2, 4, HEAD_SIZE, seed=40 + step)
    return query, kv, slots, tables, torch.tensor([step + 1, step + 1], dtype=torch.int32)


@pytest.mark.parametrize("backends", BACKENDS)
def test_kv_cache_buffer_keeps_state_across_runs(backends: tuple[str, ...]) -> None:
    module = Cache()
    data = kiln.export(Cache(), cache_step(0))
    program = kiln.load(data, backends=backends)
    # Written in place: no copy of the caches, no write-back.
    assert "kiln::reshape_and_cache" in program.operators
    assert "aten::copy_" not in program.operators
    key_cache, value_cache = (
        torch.zeros(4, BLOCK_SIZE, 2, HEAD_SIZE),
        torch.zeros(4, BLOCK_SIZE, 2, HEAD_SIZE),
    )
    for step in range(2 * BLOCK_SIZE):
        inputs = cache_step(step)
        (actual,) = program.run(*inputs)
        with kiln.torch_ops.use_backend(backends[0]):
            expected = module(*inputs)
        query, kv, slots, tables, lengths = inputs
        ref.reshape_and_cache(kv[0], kv[1], key_cache, value_cache, slots)
        assert_near(actual, expected, 0)
        assert_near(
            actual, ref.paged_attention(query, key_cache, value_cache, tables, lengths, 0.25), 8
        )


class PagedLayoutCache(torch.nn.Module):
    """Cache's decoder step on caches in vLLM's paged layout, through the paged_layout
    overloads."""

    def __init__(self, blocks: int = 4) -> None:
        super().__init__()
        x = 16 // 4  # float32
        self.register_buffer("key_cache", torch.zeros(blocks, 2, HEAD_SIZE // x, BLOCK_SIZE, x))
        self.register_buffer("value_cache", torch.zeros(blocks, 2, HEAD_SIZE, BLOCK_SIZE))

    def forward(
        self,
        query: torch.Tensor,
        kv: torch.Tensor,
        slots: torch.Tensor,
        tables: torch.Tensor,
        lengths: torch.Tensor,
    ) -> torch.Tensor:
        key, value = kv.unbind(0)
        ops.reshape_and_cache.paged_layout(key, value, self.key_cache, self.value_cache, slots)
        return ops.paged_attention.paged_layout(
            query, self.key_cache, self.value_cache, tables, lengths, 0.25
        )


@pytest.mark.parametrize("backends", BACKENDS)
def test_paged_layout_cache_exports_and_runs(backends: tuple[str, ...]) -> None:
    # The functional .paged_layout lowers to .paged_layout_out; the caches are written in place.
    program = kiln.load(kiln.export(PagedLayoutCache(), cache_step(0)), backends=backends)
    assert {
        "kiln::reshape_and_cache.paged_layout",
        "kiln::paged_attention.paged_layout_out",
    } <= set(program.operators)
    assert "aten::copy_" not in program.operators
    flash = Cache()
    for step in range(BLOCK_SIZE + 2):
        inputs = cache_step(step)
        (actual,) = program.run(*inputs)
        with kiln.torch_ops.use_backend(backends[0]):
            expected = flash(*inputs)
        assert_near(actual, expected, 8)


class ReadsOldCache(Cache):
    """Reads the cache's value from before the write too."""

    def forward(
        self,
        query: torch.Tensor,
        kv: torch.Tensor,
        slots: torch.Tensor,
        tables: torch.Tensor,
        lengths: torch.Tensor,
    ) -> torch.Tensor:
        before = self.key_cache.sum()
        written = super().forward(query, kv, slots, tables, lengths)
        return written + before


def test_cache_read_before_its_write_sees_the_old_value() -> None:
    module = ReadsOldCache()
    program = kiln.load(kiln.export(ReadsOldCache(), cache_step(0)))
    assert "aten::copy_" not in program.operators  # the read comes first: still in place
    for step in range(3):
        inputs = cache_step(step)
        assert_near(program.run(*inputs)[0], module(*inputs), 2)


class WritesCopy(torch.nn.Module):
    """Writes a copy of its input caches and returns it: the program writes a copy, not the
    input."""

    def forward(
        self,
        key_cache: torch.Tensor,
        value_cache: torch.Tensor,
        kv: torch.Tensor,
        slots: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        key_cache, value_cache = key_cache.clone(), value_cache.clone()
        ops.reshape_and_cache(kv[0], kv[1], key_cache, value_cache, slots)
        return key_cache, value_cache


def test_written_copies_of_inputs() -> None:
    key_cache, value_cache = paged([5])[1:3]
    kv, slots = randn(2, 2, 2, HEAD_SIZE, seed=3), torch.tensor([1, -1])
    program = kiln.load(kiln.export(WritesCopy(), (key_cache, value_cache, kv, slots)))
    assert "aten::copy_" in program.operators  # the caches are copied, then written
    before = key_cache.clone()
    actual = program.run(key_cache, value_cache, kv, slots)
    expected = WritesCopy()(key_cache, value_cache, kv, slots)
    assert torch.equal(key_cache, before)
    for a, e in zip(actual, expected, strict=True):
        assert torch.equal(a, e)


class WritesInput(torch.nn.Module):
    def forward(
        self,
        key_cache: torch.Tensor,
        value_cache: torch.Tensor,
        kv: torch.Tensor,
        slots: torch.Tensor,
    ) -> torch.Tensor:
        ops.reshape_and_cache(kv[0], kv[1], key_cache, value_cache, slots)
        return kv.sum()


def test_writing_an_input_is_a_clear_export_error() -> None:
    key_cache = torch.zeros(2, BLOCK_SIZE, 2, HEAD_SIZE)
    inputs = (key_cache, key_cache.clone(), randn(2, 2, 2, HEAD_SIZE), torch.tensor([0, 1]))
    with pytest.raises(
        kiln.ExportError, match="keep the state \\(a KV cache\\) in a module buffer"
    ):
        kiln.export(WritesInput(), inputs)


class CallsOutVariant(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ops.silu_and_mul.out(x, out=torch.empty(0))


def test_modules_call_functional_forms() -> None:
    """torch.export cannot functionalize a custom out variant (its result aliases an argument)."""
    with pytest.raises(kiln.ExportError, match="output has alias annotations"):
        kiln.export(CallsOutVariant(), (torch.randn(2, 8),))


class OneCacheTwice(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(2, BLOCK_SIZE, 2, HEAD_SIZE))

    def forward(self, kv: torch.Tensor, slots: torch.Tensor) -> torch.Tensor:
        ops.reshape_and_cache(kv[0], kv[1], self.cache, self.cache, slots)
        return self.cache.sum()


def test_one_tensor_written_through_two_arguments_is_refused() -> None:
    inputs = (randn(2, 2, 2, HEAD_SIZE), torch.tensor([0, 1]))
    with pytest.raises(kiln.ExportError, match="writes one tensor through two arguments"):
        kiln.export(OneCacheTwice(), inputs)


def test_buffer_whose_old_value_is_read_later_is_written_as_a_copy() -> None:
    """A graph that reads the cache's old value after the write (the order torch.export may
    leave): the write goes to a copy, the copy is written back, and the read sees the old value."""
    module = ReadsOldCache()
    exported = torch.export.export(ReadsOldCache(), cache_step(0)).run_decompositions()
    graph = exported.graph
    (write,) = (n for n in graph.nodes if "auto_functionalized" in str(n.target))
    (read,) = (n for n in graph.nodes if n.target == torch.ops.aten.sum.dim_IntList)
    write.append(read)  # move the read of the old cache after the write
    graph.lint()
    program = kiln.load(kiln.export(exported))
    assert "aten::copy_" in program.operators
    for step in range(3):
        inputs = cache_step(step)
        assert_near(program.run(*inputs)[0], module(*inputs), 2)
