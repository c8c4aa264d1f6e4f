"""The serving benchmark's model and batch: a Llama-architecture decoder's shape and seeded
random weights, and a batch of prompts of mixed lengths laid out as a serving engine lays them
out (packed prompt tokens, a paged KV cache with shuffled block tables). Both decoders of
bench/serving.py (Kiln's operators, eager PyTorch) and the GGUF writer read these."""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Config:
    layers: int = 4
    hidden: int = 512
    heads: int = 8
    kv_heads: int = 2
    intermediate: int = 1408
    vocab: int = 32000
    rope_theta: float = 10000.0
    epsilon: float = 1e-5
    # NeoX rotates the two halves of a head, GPT-J adjacent pairs (llama.cpp's `llama` rope).
    is_neox: bool = True
    block_size: int = 16
    max_positions: int = 512  # the rotary table's rows, and the GGUF's context length

    @property
    def head_size(self) -> int:
        return self.hidden // self.heads

    @property
    def q_size(self) -> int:
        return self.heads * self.head_size

    @property
    def kv_size(self) -> int:
        return self.kv_heads * self.head_size

    @property
    def qkv_rows(self) -> int:
        return self.q_size + 2 * self.kv_size

    def parameters(self) -> int:
        per_layer = (
            2 * self.hidden
            + self.qkv_rows * self.hidden
            + self.hidden * self.q_size
            + 3 * self.intermediate * self.hidden
        )
        return 2 * self.vocab * self.hidden + self.layers * per_layer + self.hidden


# A model small enough for a test to run every path in seconds.
TINY = Config(layers=2, hidden=64, heads=4, kv_heads=2, intermediate=160, vocab=512)


@dataclass(frozen=True)
class LayerWeights:
    attn_norm: torch.Tensor  # [hidden]
    qkv: torch.Tensor  # [q_size + 2 * kv_size, hidden]: the query's rows, the key's, the value's
    out: torch.Tensor  # [hidden, q_size]
    mlp_norm: torch.Tensor  # [hidden]
    gate_up: torch.Tensor  # [2 * intermediate, hidden]: the gate's rows, then the up's
    down: torch.Tensor  # [hidden, intermediate]


@dataclass(frozen=True)
class Weights:
    embedding: torch.Tensor  # [vocab, hidden]
    layers: tuple[LayerWeights, ...]
    final_norm: torch.Tensor  # [hidden]
    lm_head: torch.Tensor  # [vocab, hidden]
    cos_sin: torch.Tensor  # [max_positions, head_size]: cosines then sines (vLLM's cache)


def rotary_cos_sin(config: Config) -> torch.Tensor:
    """vLLM's cos_sin_cache: row p holds cos(p * f_i) then sin(p * f_i), f_i = theta^(-2i/d)."""
    half = config.head_size // 2
    inv_freq = config.rope_theta ** (-torch.arange(half, dtype=torch.float64) / half)
    angles = torch.arange(config.max_positions, dtype=torch.float64)[:, None] * inv_freq
    return torch.cat((angles.cos(), angles.sin()), dim=-1).float()


def random_weights(config: Config, seed: int = 0) -> Weights:
    """Seeded weights scaled like an initialised model, so activations stay near 1; the head is
    scaled up so that the greedy argmaxes are clear (float32 rounding does not flip them)."""
    generator = torch.Generator().manual_seed(seed)

    def matrix(rows: int, cols: int) -> torch.Tensor:
        return torch.randn(rows, cols, generator=generator).mul_(cols**-0.5)

    def norm() -> torch.Tensor:
        return 1.0 + 0.1 * torch.randn(config.hidden, generator=generator)

    layers = tuple(
        LayerWeights(
            attn_norm=norm(),
            qkv=matrix(config.qkv_rows, config.hidden),
            out=matrix(config.hidden, config.q_size),
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
        lm_head=matrix(config.vocab, config.hidden).mul_(4.0),
        cos_sin=rotary_cos_sin(config),
    )


@dataclass(frozen=True)
class Batch:
    """Prompts of mixed lengths, prefilled together as one packed run of tokens (vLLM's
    varlen layout), then decoded `steps` greedy steps together. Each sequence owns whole blocks
    of the paged cache, handed out in a shuffled order so that paging is exercised."""

    prompts: tuple[tuple[int, ...], ...]
    steps: int
    block_size: int
    block_tables: torch.Tensor  # [sequences, max_blocks] int32
    num_blocks: int

    @staticmethod
    def make(
        config: Config,
        sequences: int = 8,
        shortest: int = 17,
        longest: int = 200,
        steps: int = 32,
        seed: int = 0,
    ) -> Batch:
        if longest + steps + 1 > config.max_positions:
            raise ValueError(
                f"prompts of up to {longest} tokens plus {steps} steps exceed the model's "
                f"{config.max_positions} positions"
            )
        generator = torch.Generator().manual_seed(seed + 1)
        lengths = torch.linspace(shortest, longest, sequences).round().long().tolist()
        prompts = tuple(
            tuple(torch.randint(3, config.vocab, (n,), generator=generator).tolist())
            for n in lengths
        )
        # One position more than the last step writes: advance_step_flashattn prepares the slot
        # of the step after it.
        per_sequence = math.ceil((longest + steps + 1) / config.block_size)
        num_blocks = sequences * per_sequence
        order = torch.randperm(num_blocks, generator=generator).to(torch.int32)
        return Batch(
            prompts=prompts,
            steps=steps,
            block_size=config.block_size,
            block_tables=order.view(sequences, per_sequence).contiguous(),
            num_blocks=num_blocks,
        )

    @property
    def sequences(self) -> int:
        return len(self.prompts)

    @property
    def lengths(self) -> list[int]:
        return [len(prompt) for prompt in self.prompts]

    @property
    def prefill_tokens(self) -> int:
        return sum(self.lengths)

    @property
    def max_length(self) -> int:
        """The longest sequence at the end of decoding: the contiguous caches' length."""
        return max(self.lengths) + self.steps

    def spans(self) -> list[tuple[int, int]]:
        """Each sequence's rows [start, end) in the packed prefill."""
        ends = torch.tensor(self.lengths).cumsum(0).tolist()
        return [(end - n, end) for n, end in zip(self.lengths, ends, strict=True)]

    def packed_tokens(self) -> torch.Tensor:
        return torch.tensor([t for prompt in self.prompts for t in prompt], dtype=torch.long)

    def packed_positions(self) -> torch.Tensor:
        return torch.cat([torch.arange(n) for n in self.lengths])

    def last_rows(self) -> torch.Tensor:
        """The packed row of each sequence's last prompt token, whose logits pick its next."""
        return torch.tensor([end - 1 for _, end in self.spans()], dtype=torch.long)

    def slots(self, sequence: int, positions: torch.Tensor) -> torch.Tensor:
        """The paged cache slots of `sequence`'s tokens at `positions`."""
        blocks = self.block_tables[sequence].long()[positions // self.block_size]
        return blocks * self.block_size + positions % self.block_size

    def prefill_slots(self) -> torch.Tensor:
        return torch.cat([self.slots(s, torch.arange(n)) for s, n in enumerate(self.lengths)])
