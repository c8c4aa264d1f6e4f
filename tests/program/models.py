"""A zoo of small PyTorch models with example inputs, shared by the program tests (export, load,
run): each `ZooModel` builds a fresh module in eval mode and its example inputs, seeded, so every
test sees the same weights and inputs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn


class Mlp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


class SmallCnn(nn.Module):
    """conv + BatchNorm (eval) + relu, max pooling, a residual block, flatten, linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.stem_bn = nn.BatchNorm2d(8)
        self.conv = nn.Conv2d(8, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.head = nn.Linear(8 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.stem_bn(self.stem(x)))
        x = nn.functional.max_pool2d(x, 2)
        x = torch.relu(x + self.bn(self.conv(x)))
        return self.head(torch.flatten(x, 1))


class TransformerBlock(nn.Module):
    """Pre-norm self-attention and a GELU feed-forward, written with matmul and softmax."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.ff1 = nn.Linear(dim, 4 * dim)
        self.ff2 = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, tokens, dim = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(dim, dim=-1)
        head_dim = dim // self.heads

        def heads(t: torch.Tensor) -> torch.Tensor:
            return t.reshape(batch, tokens, self.heads, head_dim).transpose(1, 2)

        scores = torch.matmul(heads(q), heads(k).transpose(-2, -1)) / head_dim**0.5
        attended = torch.matmul(torch.softmax(scores, dim=-1), heads(v))
        x = x + self.proj(attended.transpose(1, 2).reshape(batch, tokens, dim))
        return x + self.ff2(nn.functional.gelu(self.ff1(self.norm2(x))))


class TwoInTwoOut(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        mixed = self.fc(a) * b
        return mixed.sum(dim=-1), torch.sigmoid(a - b)


class Accumulator(nn.Module):
    """Mutates a registered buffer in forward: the state persists from one run to the next."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("total", torch.arange(12, dtype=torch.float32).reshape(3, 4) / 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.total.add_(x)
        return self.total * 2.0


class ViewsOfInput(nn.Module):
    """Reads a tensor together with views of it: kiln.export leaves the views on the same bytes."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return x + x.reshape(4, 3).reshape(3, 4), torch.cat([x, x.view(3, 4)])


@dataclass(frozen=True)
class ZooModel:
    name: str
    build: Callable[[], nn.Module]
    inputs: Callable[[], tuple[torch.Tensor, ...]]
    stateful: bool = False  # mutates a buffer: run it several times

    def create(self) -> tuple[nn.Module, tuple[torch.Tensor, ...]]:
        """A fresh module in eval mode (deterministic weights) and its example inputs."""
        torch.manual_seed(0)
        module = self.build().eval()
        for buffer_name, buffer in module.named_buffers():
            if "running_" in buffer_name:  # BatchNorm statistics other than the defaults
                buffer.uniform_(0.5, 1.5)
        return module, self.inputs()


def _seeded(*shapes: tuple[int, ...]) -> Callable[[], tuple[torch.Tensor, ...]]:
    def make() -> tuple[torch.Tensor, ...]:
        generator = torch.Generator().manual_seed(1)
        return tuple(torch.randn(shape, generator=generator) for shape in shapes)

    return make


def _encoder_layer() -> nn.Module:
    return nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, batch_first=True)


ZOO: tuple[ZooModel, ...] = (
    ZooModel("mlp", Mlp, _seeded((4, 16))),
    ZooModel("cnn", SmallCnn, _seeded((2, 3, 8, 8))),
    ZooModel("transformer_block", TransformerBlock, _seeded((2, 5, 16))),
    ZooModel("encoder_layer", _encoder_layer, _seeded((2, 5, 16))),
    ZooModel("two_in_two_out", TwoInTwoOut, _seeded((3, 6), (3, 6))),
    ZooModel("accumulator", Accumulator, _seeded((3, 4)), stateful=True),
    ZooModel("views_of_input", ViewsOfInput, _seeded((3, 4))),
)


def zoo_model(name: str) -> ZooModel:
    return next(model for model in ZOO if model.name == name)
