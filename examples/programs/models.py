"""The demo's two models: a small CNN and a transformer block, with their example inputs."""

from __future__ import annotations

import torch


class SmallCnn(torch.nn.Module):
    """conv -> batch norm -> relu -> max pool -> residual conv block -> linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(16)
        self.block = torch.nn.Conv2d(16, 16, 3, padding=1)
        self.head = torch.nn.Linear(16 * 8 * 8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.max_pool2d(torch.relu(self.norm(self.stem(x))), 2)
        y = y + torch.relu(self.block(y))
        return self.head(torch.flatten(y, 1))


class TransformerBlock(torch.nn.Module):
    """Pre-norm attention and MLP, written with matmul, softmax, layer norm and GELU."""

    def __init__(self, dim: int = 64, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = torch.nn.LayerNorm(dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.proj = torch.nn.Linear(dim, dim)
        self.norm2 = torch.nn.LayerNorm(dim)
        self.up = torch.nn.Linear(dim, 4 * dim)
        self.down = torch.nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, dim = x.shape
        q, k, v = self.qkv(self.norm1(x)).chunk(3, dim=-1)

        def split(t: torch.Tensor) -> torch.Tensor:
            return t.reshape(batch, tokens, self.heads, dim // self.heads).transpose(1, 2)

        q, k, v = split(q), split(k), split(v)
        scores = torch.softmax(q @ k.transpose(-2, -1) / (dim // self.heads) ** 0.5, dim=-1)
        attended = (scores @ v).transpose(1, 2).reshape(batch, tokens, dim)
        x = x + self.proj(attended)
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm2(x))))


def demo_models() -> list[tuple[str, torch.nn.Module, tuple[torch.Tensor, ...]]]:
    torch.manual_seed(0)
    return [
        ("cnn", SmallCnn().eval(), (torch.randn(1, 3, 16, 16),)),
        ("transformer", TransformerBlock().eval(), (torch.randn(1, 16, 64),)),
    ]
