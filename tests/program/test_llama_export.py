"""Llama programs written through ExecuTorch 1.5.1's LLM export path: its Llama transformer with
the source transformations its export_llama applies for ``--use_kv_cache
--use_sdpa_with_kv_cache`` (llama::custom_sdpa and llama::update_cache over KV caches the program
mutates), a dynamic token dimension for the prompt, and, quantized, its ``--embedding-quantize``
(4-bit grouped embeddings) with ``-qmode int8`` (int8 weight-only linears). Kiln runs a prefill
and a greedy decode loop on each and matches the eager module token for token, and ExecuTorch's
own runtime on the same file; kiln.export writes the module too, for both runtimes."""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass

import pytest
import torch
from executorch_export import ExecuTorchMethod, operator_tables

import kiln

PROMPT = [3, 17, 99, 5, 42, 7]
MAX_SEQ_LEN = 48  # the KV caches' positions
STEPS = 8
# float32 throughout; Kiln's kernels sum in other orders than the eager ones: the logits (up to
# ~3 in magnitude) differ by about 1e-6.
LOGITS_TOLERANCE = {"atol": 1e-4, "rtol": 1e-4}

# Runs one step: tokens [1, n] at position `start` -> logits [1, vocab] of the last token.
Step = Callable[[torch.Tensor, int], torch.Tensor]


@dataclass
class Exported:
    eager: torch.nn.Module  # the module the program was exported from, run eagerly
    program: bytes  # ExecuTorch's exporter's
    quantized: bool


@functools.cache
def export_llama(quantized: bool) -> Exported:
    """ExecuTorch's Llama transformer (random weights, seeded) through its LLM export path."""
    import executorch.extension.llm.custom_ops.custom_ops  # noqa: F401  llama:: with torch
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs
    from executorch.examples.models.llama.source_transformation.custom_kv_cache import (
        replace_kv_cache_with_custom_kv_cache,
    )
    from executorch.examples.models.llama.source_transformation.quantize import (
        get_quant_embedding_transform,
        get_quant_weight_transform,
    )
    from executorch.examples.models.llama.source_transformation.sdpa import (
        replace_sdpa_with_custom_op,
    )
    from executorch.exir import to_edge

    torch.manual_seed(0)
    args = ModelArgs(
        dim=64,
        n_layers=2,
        n_heads=4,
        n_kv_heads=2,
        vocab_size=256,
        multiple_of=32,
        max_seq_len=MAX_SEQ_LEN,
        max_context_len=MAX_SEQ_LEN,
        use_kv_cache=True,
        use_sdpa_with_kv_cache_op=True,
        enable_dynamic_shape=True,
    )
    module = construct_transformer(args).eval()
    # export_llama_lib's order: SDPA first, then the KV cache, then quantization.
    module = replace_kv_cache_with_custom_kv_cache(replace_sdpa_with_custom_op(module))
    if quantized:
        module = get_quant_embedding_transform("4,32")(module)
        module = get_quant_weight_transform("int8")(module)
    eager = copy.deepcopy(module)  # its caches start empty, as the program's do
    return Exported(eager, to_edge(torch_export(module)).to_executorch().buffer, quantized)


def torch_export(module: torch.nn.Module) -> torch.export.ExportedProgram:
    """torch.export as ExecuTorch's LLM export calls it: the prompt's length dynamic."""
    dynamic = ({1: torch.export.Dim("token_dim", max=MAX_SEQ_LEN - 1)}, {"input_pos": {0: 1}})
    inputs = (torch.tensor([PROMPT[:2]]), {"input_pos": torch.tensor([0])})
    with torch.no_grad():
        return torch.export.export(module, inputs, dynamic_shapes=dynamic, strict=False)


@pytest.fixture(scope="module", params=[False, True], ids=["float", "quantized"])
def exported(request: pytest.FixtureRequest) -> Exported:
    return export_llama(request.param)


def eager_step(module: torch.nn.Module) -> Step:
    def step(tokens: torch.Tensor, start: int) -> torch.Tensor:
        with torch.no_grad():
            logits: torch.Tensor = module(tokens, {"input_pos": torch.tensor([start])})
        return logits

    return step


def kiln_step(program: bytes, backends: tuple[str, ...] = ("portable",)) -> Step:
    loaded = kiln.load(program, backends=backends)

    def step(tokens: torch.Tensor, start: int) -> torch.Tensor:
        logits: torch.Tensor = loaded.run(tokens, torch.tensor([start]))[0]
        return logits

    return step


def decode(step: Step) -> tuple[list[int], torch.Tensor]:
    """The prompt in one prefill, then STEPS greedy tokens one at a time: the tokens and every
    step's logits."""
    tokens = list(PROMPT)
    logits = [step(torch.tensor([tokens]), 0)]
    for _ in range(STEPS):
        tokens.append(int(logits[-1][-1].argmax()))
        logits.append(step(torch.tensor([tokens[-1:]]), len(tokens) - 1))
    return tokens, torch.cat(logits)


def test_program_calls_the_llm_export_operators(exported: Exported) -> None:
    operators = set(operator_tables(exported.program)["forward"])
    assert {"llama::custom_sdpa.out", "llama::update_cache.out"} <= operators
    assert "aten::sym_size.int" in operators  # the prompt's length is dynamic
    embedding = "quantized_decomposed::embedding_4bit.dtype_out"
    assert (embedding in operators) == exported.quantized


@pytest.mark.parametrize("backends", [("portable",), ("ascend", "portable")], ids=",".join)
def test_decode_matches_eager(exported: Exported, backends: tuple[str, ...]) -> None:
    expected_tokens, expected_logits = decode(eager_step(exported.eager))
    top2 = expected_logits.topk(2, dim=-1).values
    # Each greedy choice wins by more than the tolerance: equal tokens mean equal computations.
    assert float((top2[:, 0] - top2[:, 1]).min()) > 10 * LOGITS_TOLERANCE["atol"]
    tokens, logits = decode(kiln_step(exported.program, backends))
    assert tokens == expected_tokens
    torch.testing.assert_close(logits, expected_logits, **LOGITS_TOLERANCE)


def test_decode_matches_executorch_runtime() -> None:
    """ExecuTorch runs the float file with the llama:: kernels its AOT library registers with its
    runtime; Kiln's logits match its own. (Its runtime cannot run the quantized file: its
    quantized kernel library has no embedding_4bit.dtype_out kernel for the Byte weights and Long
    indices without zero points that its own LLM export writes.)"""
    program = export_llama(quantized=False).program
    method = ExecuTorchMethod(program)
    tokens, logits = decode(kiln_step(program))
    executorch_tokens, executorch_logits = decode(
        lambda t, start: method.run(t, torch.tensor([start]))[0]
    )
    assert tokens == executorch_tokens
    torch.testing.assert_close(logits, executorch_logits, **LOGITS_TOLERANCE)


def test_kiln_export_of_the_llm_module_runs_on_both_runtimes() -> None:
    """kiln.export writes the same module (llama::update_cache through its out variant, the
    caches written in place); Kiln decodes it like eager, and ExecuTorch's runtime runs it."""
    exported = export_llama(quantized=False)
    program = kiln.export(torch_export(copy.deepcopy(exported.eager)))
    operators = set(kiln.load(program).operators)
    assert {"llama::update_cache.out", "llama::custom_sdpa.out"} <= operators
    assert "aten::copy_" not in operators  # no copy or write-back of the caches per step
    expected_tokens, expected_logits = decode(eager_step(exported.eager))
    tokens, logits = decode(kiln_step(program))
    assert tokens == expected_tokens
    torch.testing.assert_close(logits, expected_logits, **LOGITS_TOLERANCE)
    method = ExecuTorchMethod(program)
    executorch_tokens, executorch_logits = decode(
        lambda t, start: method.run(t, torch.tensor([start]))[0]
    )
    assert executorch_tokens == expected_tokens
    torch.testing.assert_close(executorch_logits, expected_logits, **LOGITS_TOLERANCE)


def test_missing_report_names_no_prim_operator(exported: Exported) -> None:
    """On a backend lacking most of the program's operators, the report lists those, never the
    executor's own prim operators (sym_size, _local_scalar_dense) that the program also calls."""
    with pytest.raises(kiln.ProgramLoadError) as error:
        kiln.load(exported.program, backends=("ascend",))
    missing = {entry.op for entry in error.value.missing}
    assert missing
    assert not missing & {"aten::sym_size.int", "aten::_local_scalar_dense"}
