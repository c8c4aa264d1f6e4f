"""The fuzzer's seed corpus: real .pte programs, as ExecuTorch 1.5.1's exporter writes them.

python tests/fuzz/corpus.py OUT_DIR    writes them to OUT_DIR (for longer local fuzz runs)
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import torch


def export_with_executorch(module: torch.nn.Module, inputs: tuple[torch.Tensor, ...]) -> bytes:
    """The .pte ExecuTorch's own exporter writes for ``module``."""
    try:
        import executorch.exir
    except ImportError as error:
        raise RuntimeError(
            f"ExecuTorch 1.5.1 is needed to write the fuzz corpus ({error}): run tools/setup.sh"
        ) from None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exported = torch.export.export(module, inputs)
        return bytes(executorch.exir.to_edge(exported).to_executorch().buffer)


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = torch.nn.Linear(8, 16)
        self.head = torch.nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.hidden(x)))


class SmallCnn(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(4)
        self.head = torch.nn.Linear(4 * 2 * 2, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.max_pool2d(torch.relu(self.norm(self.conv(x))), 2)
        return self.head(torch.flatten(y + y, 1))


class Counter(torch.nn.Module):
    """A mutable buffer: its state persists from one run to the next."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("total", torch.zeros(4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.total.add_(x)
        return self.total * 2


class Block(torch.nn.Module):
    """A transformer-style block: layer norm, single-head attention, a GELU feed-forward."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(8)
        self.q = torch.nn.Linear(8, 8)
        self.k = torch.nn.Linear(8, 8)
        self.v = torch.nn.Linear(8, 8)
        self.ff = torch.nn.Sequential(
            torch.nn.Linear(8, 16), torch.nn.GELU(), torch.nn.Linear(16, 8)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.norm(x)
        scores = self.q(h) @ self.k(h).transpose(-2, -1) / 4.0
        x = x + torch.softmax(scores, dim=-1) @ self.v(h)
        return x + self.ff(x)


class TwoInTwoOut(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.relu(a @ b), a - b.transpose(0, 1)


MODELS: dict[str, tuple[Callable[[], torch.nn.Module], Callable[[], tuple[torch.Tensor, ...]]]] = {
    "mlp": (Mlp, lambda: (torch.randn(2, 8),)),
    "cnn": (SmallCnn, lambda: (torch.randn(1, 3, 4, 4),)),
    "counter": (Counter, lambda: (torch.randn(4),)),
    "block": (Block, lambda: (torch.randn(1, 4, 8),)),
    "two_in_two_out": (TwoInTwoOut, lambda: (torch.randn(3, 4), torch.randn(4, 3))),
}


def export_corpus(out_dir: Path) -> list[Path]:
    """Writes <name>.pte for every model (fixed weights, so the files are the same every time)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, (make_module, make_inputs) in sorted(MODELS.items()):
        torch.manual_seed(0)
        pte = export_with_executorch(make_module().eval(), make_inputs())
        path = out_dir / f"{name}.pte"
        if not path.exists() or path.read_bytes() != pte:
            path.write_bytes(pte)
        paths.append(path)
    return paths


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python tests/fuzz/corpus.py OUT_DIR")
    for written in export_corpus(Path(sys.argv[1])):
        print(written)
