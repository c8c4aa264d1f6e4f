"""model.py's decoder in MindSpore: the same weights and the same Kiln operators, called through
kiln.mindspore from an AOT library (kiln_add_mindspore_library), with MindSpore's own gather and
matmul between them. It decodes as decode.py does, and prints its tokens beside those of the
decoder on torch.ops.kiln (model.py, eager PyTorch) and the largest logit difference.

    python mindspore_decode.py --library build/libllm_ops_ms.so [--steps 32]

The library must hold the operators the decoder calls (OPS). Differences from model.py:
an AOT operator writes only its outputs, so reshape_and_cache returns the updated caches and the
decoder keeps those; and the step inputs come from kiln::advance_step_flashattn, vLLM's update of
a batch's state after sampling (the next token, its position, its cache slot, the lengths), here
for a batch of one sequence.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, fields

import mindspore as ms
import numpy as np
import torch
from decode import BLOCK_TABLE, PROMPT, STEPS, Decoded, generate, step_inputs
from mindspore import ops
from model import Config, KilnDecoder, LayerWeights, Weights, random_weights

import kiln
import kiln.mindspore

OPS = (
    "kiln::rms_norm.out",
    "kiln::fused_add_rms_norm.out",
    "kiln::rotary_embedding.out",
    "kiln::silu_and_mul.out",
    "kiln::reshape_and_cache",
    "kiln::paged_attention.out",
    "kiln::advance_step_flashattn",
)


def _ms(tensor: torch.Tensor) -> ms.Tensor:
    return ms.Tensor(tensor.numpy())


@dataclass
class StepState:
    """advance_step_flashattn's state of a batch of one sequence: the step's token, position and
    cache slot, the sequence's length including the step's token, and its block table."""

    tokens: ms.Tensor  # [1] int64
    positions: ms.Tensor  # [1] int64
    seq_lens: ms.Tensor  # [1] int32
    slot_mapping: ms.Tensor  # [1] int64
    block_tables: ms.Tensor  # [1, max_blocks] int32


class MindSporeDecoder:
    """step(token, position) -> logits [1, vocab] (a torch tensor, for decode.generate): one
    decode step of the sequence whose blocks are decode.BLOCK_TABLE, on MindSpore tensors."""

    def __init__(self, config: Config, weights: Weights, library: str) -> None:
        self.config = config
        self.kiln = {
            name.split("::")[1].split(".")[0]: kiln.mindspore.custom(name, library) for name in OPS
        }
        self.embedding = _ms(weights.embedding)
        self.final_norm = _ms(weights.final_norm)
        self.lm_head_t = _ms(weights.lm_head.t().contiguous())
        self.cos_sin = _ms(weights.cos_sin)
        # Linear weights transposed once (h @ w_t is F.linear(h, w)); q, k and v's rows of qkv
        # as one matrix per head, [heads, hidden, head_size], so that their products come out
        # with the heads as a dim of their own. (MindSpore 2.10 beside NumPy 2 fails the first
        # call that parses a shape, such as reshape or split, once per process.)
        q_size, kv_size = config.heads * config.head_size, config.kv_heads * config.head_size
        self.layers = []
        for layer in weights.layers:
            tensors = {f.name: getattr(layer, f.name) for f in fields(LayerWeights)}
            q, k, v = tensors.pop("qkv").split([q_size, kv_size, kv_size])
            matrices = {
                name: _ms(t.t().contiguous()) for name, t in tensors.items() if t.dim() == 2
            }
            vectors = {name: _ms(t) for name, t in tensors.items() if t.dim() == 1}
            heads = {
                name: _ms(t.view(-1, config.head_size, config.hidden).transpose(1, 2).contiguous())
                for name, t in (("q", q), ("k", k), ("v", v))
            }
            self.layers.append({**matrices, **vectors, **heads})
        shape = (config.num_blocks, config.block_size, config.kv_heads, config.head_size)
        self.key_caches = [ms.Tensor(np.zeros(shape, np.float32)) for _ in weights.layers]
        self.value_caches = [ms.Tensor(np.zeros(shape, np.float32)) for _ in weights.layers]
        # Before the first token: an empty sequence, whose next position is 0.
        self.state = StepState(
            tokens=ms.Tensor(np.zeros(1, np.int64)),
            positions=ms.Tensor(np.zeros(1, np.int64)),
            seq_lens=ms.Tensor(np.zeros(1, np.int32)),
            slot_mapping=ms.Tensor(np.zeros(1, np.int64)),
            block_tables=ms.Tensor(np.array([BLOCK_TABLE], np.int32)),
        )

    def advance(self, token: int) -> None:
        """The state of the step that feeds `token`, from the previous step's."""
        s = self.state
        sampled = ms.Tensor(np.array([[token]], np.int64))
        tokens, positions, seq_lens, slots = self.kiln["advance_step_flashattn"](
            1,
            1,
            self.config.block_size,
            s.tokens,
            sampled,
            s.positions,
            s.seq_lens,
            s.slot_mapping,
            s.block_tables,
        )
        self.state = StepState(tokens, positions, seq_lens, slots, s.block_tables)

    def forward(self) -> ms.Tensor:
        """KilnDecoder.forward on the current state: the logits of the next token."""
        c, s, k = self.config, self.state, self.kiln
        residual = ops.gather(self.embedding, s.tokens, 0)  # [1, hidden]
        h = k["rms_norm"](residual, self.layers[0]["attn_norm"], c.epsilon)
        for i, layer in enumerate(self.layers):
            if i > 0:
                h, residual = k["fused_add_rms_norm"](h, residual, layer["attn_norm"], c.epsilon)
            # [tokens, 1, 1, hidden] @ [heads, hidden, head_size] -> [tokens, heads, head_size]
            rows = ops.expand_dims(ops.expand_dims(h, 1), 1)
            q, key, value = (ops.squeeze(ops.matmul(rows, layer[n]), 2) for n in ("q", "k", "v"))
            q, key = k["rotary_embedding"](s.positions, q, key, c.head_size, self.cos_sin, True)
            self.key_caches[i], self.value_caches[i] = k["reshape_and_cache"](
                key, value, self.key_caches[i], self.value_caches[i], s.slot_mapping
            )
            attended = k["paged_attention"](
                q,
                self.key_caches[i],
                self.value_caches[i],
                s.block_tables,
                s.seq_lens,
                c.head_size**-0.5,
            )
            h = ops.matmul(ops.flatten(attended), layer["out"])  # [tokens, heads * head_size]
            h, residual = k["fused_add_rms_norm"](h, residual, layer["mlp_norm"], c.epsilon)
            h = ops.matmul(k["silu_and_mul"](ops.matmul(h, layer["gate_up"])), layer["down"])
        h, _ = k["fused_add_rms_norm"](h, residual, self.final_norm, c.epsilon)
        return ops.matmul(h, self.lm_head_t)

    def step(self, token: int, position: int) -> torch.Tensor:
        self.advance(token)
        reached = int(self.state.positions.asnumpy()[0])
        if reached != position:
            raise RuntimeError(
                f"advance_step_flashattn moved to position {reached}, not {position}"
            )
        return torch.from_numpy(self.forward().asnumpy().copy())


def decode_mindspore(config: Config, weights: Weights, library: str, steps: int = STEPS) -> Decoded:
    return generate(MindSporeDecoder(config, weights, library).step, PROMPT, steps)


def decode_torch_ops(config: Config, weights: Weights, steps: int = STEPS) -> Decoded:
    """The same decoder on torch.ops.kiln, eager: model.py's module called step by step."""
    model = KilnDecoder(config, weights)

    def step(token: int, position: int) -> torch.Tensor:
        logits: torch.Tensor = model(*step_inputs(config, token, position))
        return logits

    return generate(step, PROMPT, steps)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", required=True, help="the MindSpore AOT library (.so)")
    parser.add_argument("--steps", type=int, default=STEPS, help="decode steps after the prompt")
    args = parser.parse_args(argv)
    config = Config()
    if not 1 <= len(PROMPT) + args.steps <= config.max_positions:
        parser.error(f"--steps must be in 1..{config.max_positions - len(PROMPT)}")
    ms.set_device("CPU")
    weights = random_weights(config)
    try:
        mindspore = decode_mindspore(config, weights, args.library, args.steps)
    except kiln.KilnError as error:
        print(f"mindspore_decode.py: {error}", file=sys.stderr)
        return 1
    with torch.no_grad():
        torch_ops = decode_torch_ops(config, weights, args.steps)
    difference = float((mindspore.logits - torch_ops.logits).abs().max())
    print(f"prompt:          {' '.join(map(str, PROMPT))}")
    print(f"MindSpore:       {' '.join(map(str, mindspore.tokens))}")
    print(f"torch.ops.kiln:  {' '.join(map(str, torch_ops.tokens))}")
    print(f"tokens equal: {mindspore.tokens == torch_ops.tokens}")
    print(f"max |logit difference|: {difference:.3g}")
    return 0 if mindspore.tokens == torch_ops.tokens else 1


if __name__ == "__main__":
    sys.exit(main())
