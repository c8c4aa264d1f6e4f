"""A tiny Llama-style decoder written with Kiln's operators: RMSNorm, rotary embedding,
grouped-query attention over a paged KV cache held in module buffers, and a SwiGLU MLP.

One call is one decode step of one sequence: it takes the step's token and where it goes in the
paged cache, writes the token's keys and values into the caches in place, and returns the logits
of the next token. A prompt is fed through the same step token by token, so one exported program
serves every step."""

from __future__ import annotations

from dataclasses import dataclass, fields

import torch
import torch.nn.functional as F

import kiln.torch_ops  # noqa: F401  (registers torch.ops.kiln.*)

ops = torch.ops.kiln


@dataclass(frozen=True)
class Config:
    vocab: int = 256
    hidden: int = 128
    layers: int = 2
    heads: int = 8
    kv_heads: int = 2
    head_size: int = 16
    intermediate: int = 256
    block_size: int = 16
    num_blocks: int = 6  # the cache's blocks; the sequence uses a shuffled few of them
    max_blocks: int = 3  # blocks per sequence: room for max_blocks * block_size tokens
    rope_theta: float = 10000.0
    epsilon: float = 1e-6

    @property
    def max_positions(self) -> int:
        return self.max_blocks * self.block_size


@dataclass(frozen=True)
class LayerWeights:
    attn_norm: torch.Tensor  # [hidden]
    qkv: torch.Tensor  # [(heads + 2 * kv_heads) * head_size, hidden]
    out: torch.Tensor  # [hidden, heads * head_size]
    mlp_norm: torch.Tensor  # [hidden]
    gate_up: torch.Tensor  # [2 * intermediate, hidden]: the gate's rows, then the up's
    down: torch.Tensor  # [hidden, intermediate]


@dataclass(frozen=True)
class Weights:
    embedding: torch.Tensor  # [vocab, hidden]
    layers: tuple[LayerWeights, ...]
    final_norm: torch.Tensor  # [hidden]
    lm_head: torch.Tensor  # [vocab, hidden]
    cos_sin: torch.Tensor  # [max_positions, head_size]: cosines, then sines (NeoX layout)


def cos_sin_cache(config: Config) -> torch.Tensor:
    half = config.head_size // 2
    inv_freq = 1.0 / config.rope_theta ** (torch.arange(half, dtype=torch.float64) / half)
    angles = torch.arange(config.max_positions, dtype=torch.float64)[:, None] * inv_freq
    return torch.cat((angles.cos(), angles.sin()), dim=-1).float()


def random_weights(config: Config, seed: int = 0) -> Weights:
    """Seeded weights, scaled like an initialised model so activations stay near 1."""
    generator = torch.Generator().manual_seed(seed)

    def matrix(rows: int, cols: int) -> torch.Tensor:
        return torch.randn(rows, cols, generator=generator).mul(cols**-0.5)

    def norm() -> torch.Tensor:
        return 1.0 + 0.1 * torch.randn(config.hidden, generator=generator)

    qkv_rows = (config.heads + 2 * config.kv_heads) * config.head_size
    layers = tuple(
        LayerWeights(
            attn_norm=norm(),
            qkv=matrix(qkv_rows, config.hidden),
            out=matrix(config.hidden, config.heads * config.head_size),
            mlp_norm=norm(),
            gate_up=matrix(2 * config.intermediate, config.hidden),
            down=matrix(config.hidden, config.intermediate),
        )
        for _ in range(config.layers)
    )
    return Weights(
        embedding=torch.randn(config.vocab, config.hidden, generator=generator),
        layers=layers,
        final_norm=norm(),
        lm_head=4.0 * matrix(config.vocab, config.hidden),  # peaked logits: clear argmaxes
        cos_sin=cos_sin_cache(config),
    )


class KilnDecoder(torch.nn.Module):
    """forward(tokens [1] Long, positions [1] Long, slot_mapping [1] Long,
    block_tables [1, max_blocks] Int, context_lens [1] Int) -> logits [1, vocab].

    context_lens counts the tokens attended to, this step's included; slot_mapping is where this
    step's key and value go (block_tables[0, p // block_size] * block_size + p % block_size for
    position p)."""

    def __init__(self, config: Config, weights: Weights) -> None:
        super().__init__()
        self.config = config
        self.embedding = torch.nn.Parameter(weights.embedding, requires_grad=False)
        self.final_norm = torch.nn.Parameter(weights.final_norm, requires_grad=False)
        self.lm_head = torch.nn.Parameter(weights.lm_head, requires_grad=False)
        self.register_buffer("cos_sin", weights.cos_sin)
        for i, layer in enumerate(weights.layers):
            for field in fields(LayerWeights):
                param = torch.nn.Parameter(getattr(layer, field.name), requires_grad=False)
                self.register_parameter(f"layer{i}_{field.name}", param)
            cache = (config.num_blocks, config.block_size, config.kv_heads, config.head_size)
            # The KV caches are mutable buffers: the program writes them in place each step.
            self.register_buffer(f"layer{i}_key_cache", torch.zeros(cache))
            self.register_buffer(f"layer{i}_value_cache", torch.zeros(cache))

    def weight(self, layer: int, name: str) -> torch.Tensor:
        """Layer `layer`'s parameter or KV cache `name`."""
        return getattr(self, f"layer{layer}_{name}")  # type: ignore[no-any-return]

    def forward(
        self,
        tokens: torch.Tensor,
        positions: torch.Tensor,
        slot_mapping: torch.Tensor,
        block_tables: torch.Tensor,
        context_lens: torch.Tensor,
    ) -> torch.Tensor:
        c = self.config
        q_size, kv_size = c.heads * c.head_size, c.kv_heads * c.head_size
        residual = F.embedding(tokens, self.embedding)  # [1, hidden]
        h = ops.rms_norm(residual, self.weight(0, "attn_norm"), c.epsilon)
        for i in range(c.layers):
            if i > 0:  # the residual sum and the next norm in one operator
                h, residual = ops.fused_add_rms_norm(
                    h, residual, self.weight(i, "attn_norm"), c.epsilon
                )
            q, k, v = torch.split(
                F.linear(h, self.weight(i, "qkv")), [q_size, kv_size, kv_size], -1
            )
            q, k = ops.rotary_embedding(positions, q, k, c.head_size, self.cos_sin, True)
            key_cache, value_cache = self.weight(i, "key_cache"), self.weight(i, "value_cache")
            kv_shape = (-1, c.kv_heads, c.head_size)
            ops.reshape_and_cache(
                k.view(kv_shape), v.view(kv_shape), key_cache, value_cache, slot_mapping
            )
            attended = ops.paged_attention(
                q.view(-1, c.heads, c.head_size),
                key_cache,
                value_cache,
                block_tables,
                context_lens,
                c.head_size**-0.5,
            )
            h = F.linear(attended.view(-1, q_size), self.weight(i, "out"))
            h, residual = ops.fused_add_rms_norm(h, residual, self.weight(i, "mlp_norm"), c.epsilon)
            gate_up = F.linear(h, self.weight(i, "gate_up"))
            h = F.linear(ops.silu_and_mul(gate_up), self.weight(i, "down"))
        h, _ = ops.fused_add_rms_norm(h, residual, self.final_norm, c.epsilon)
        return F.linear(h, self.lm_head)
