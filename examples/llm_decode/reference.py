"""The same decoder as model.py in plain PyTorch (no Kiln operator, no paging): what the
program's tokens and logits are checked against, and the eager baseline its latency is measured
against. Its KV cache is dense, one row per position, so the paged cache's block tables and slot
mapping are checked too."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from model import Config, Weights


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * weight


def rotate_neox(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
    """x [heads, head_size] rotated by one position's cos and sin [head_size // 2]."""
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)


class ReferenceDecoder:
    """step(token, position) -> logits [1, vocab]; keeps every layer's keys and values."""

    def __init__(self, config: Config, weights: Weights) -> None:
        self.config = config
        self.weights = weights
        shape = (config.layers, config.max_positions, config.kv_heads, config.head_size)
        self.keys = torch.zeros(shape)
        self.values = torch.zeros(shape)

    def step(self, token: int, position: int) -> torch.Tensor:
        c, w = self.config, self.weights
        cos, sin = w.cos_sin[position].chunk(2)
        x = w.embedding[token][None]  # [1, hidden]
        for i, layer in enumerate(w.layers):
            qkv = F.linear(rms_norm(x, layer.attn_norm, c.epsilon), layer.qkv)
            kv_size = c.kv_heads * c.head_size
            q, k, v = torch.split(qkv, [c.heads * c.head_size, kv_size, kv_size], -1)
            q = rotate_neox(q.view(c.heads, c.head_size), cos, sin)
            self.keys[i, position] = rotate_neox(k.view(c.kv_heads, c.head_size), cos, sin)
            self.values[i, position] = v.view(c.kv_heads, c.head_size)
            group = c.heads // c.kv_heads
            keys = self.keys[i, : position + 1].repeat_interleave(group, dim=1)
            values = self.values[i, : position + 1].repeat_interleave(group, dim=1)
            scores = torch.einsum("hd,lhd->hl", q, keys) * c.head_size**-0.5
            attended = torch.einsum("hl,lhd->hd", scores.softmax(-1), values)
            x = x + F.linear(attended.reshape(1, -1), layer.out)
            gate, up = F.linear(rms_norm(x, layer.mlp_norm, c.epsilon), layer.gate_up).chunk(2, -1)
            x = x + F.linear(F.silu(gate) * up, layer.down)
        return F.linear(rms_norm(x, w.final_norm, c.epsilon), w.lm_head)
