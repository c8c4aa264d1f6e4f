"""Per-kernel report of Kiln's Ascend kernels in the emulator, at one realistic shape per op.

For each op: the launches it made (kernel, blocks), the Unified Buffer high-water mark, the
bytes moved GM->UB and UB->GM, and the vector and cube instruction counts: the numbers an
Ascend developer tunes a kernel against. Run: python bench/ascend/report.py [--soc Ascend310P].
Counts come from the emulator (no device timing exists here).
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

import torch

import kiln
import kiln.ascend

H = torch.float16


@dataclass(frozen=True)
class Case:
    op: str
    label: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    out: Any  # out tensor, or a tuple of them


def _t(*shape: int, dtype: torch.dtype = H) -> torch.Tensor:
    return torch.randn(*shape).to(dtype)


def _e(dtype: torch.dtype = H) -> torch.Tensor:
    return torch.empty(0, dtype=dtype)


def cases() -> list[Case]:
    m = _t(1024, 1024)
    v = _t(1 << 20)
    return [
        Case("aten::add.out", "1024x1024 + 1024x1024 fp16", (m, _t(1024, 1024)), {}, _e()),
        Case("aten::add.out", "1024x1024 + row 1024 fp16", (m, _t(1024)), {}, _e()),
        Case("aten::sub.out", "1024x1024 - col 1024x1 fp16", (m, _t(1024, 1)), {}, _e()),
        Case("aten::mul.out", "1024x1024 * scalar tensor fp16", (m, _t(1)), {}, _e()),
        Case(
            "aten::div.out",
            "1024x1024 / 1024x1024 fp32",
            (m.float(), _t(1024, 1024, dtype=torch.float32)),
            {},
            _e(torch.float32),
        ),
        Case("aten::relu.out", "1M fp16", (v,), {}, _e()),
        Case("aten::gelu.out", "1M fp16", (v,), {}, _e()),
        Case("aten::sigmoid.out", "1M fp16", (v,), {}, _e()),
        Case("aten::tanh.out", "1M fp16", (v,), {}, _e()),
        Case("aten::exp.out", "1M fp16", (v,), {}, _e()),
        Case("aten::sqrt.out", "1M fp16", (v.abs(),), {}, _e()),
        Case("aten::rsqrt.out", "1M fp16", (v.abs() + 1,), {}, _e()),
        Case("aten::abs.out", "1M fp16", (v,), {}, _e()),
        Case("aten::neg.out", "1M fp16", (v,), {}, _e()),
        Case("aten::clamp.out", "1M fp16, [-1, 1]", (v, -1.0, 1.0), {}, _e()),
        Case("aten::_to_copy.out", "1M fp32 -> fp16", (v.float(),), {}, _e()),
        Case("aten::_softmax.out", "1024x1024 fp16, last dim", (m, -1, False), {}, _e()),
        Case("aten::_log_softmax.out", "1024x1024 fp16, last dim", (m, -1, False), {}, _e()),
        Case(
            "aten::native_layer_norm.out",
            "1024x1024 fp16, weight+bias",
            (m, [1024], _t(1024), _t(1024), 1e-5),
            {},
            (_e(), _e(), _e()),
        ),
        Case("aten::sum.IntList_out", "1024x1024 fp16, last dim", (m, [-1]), {}, _e()),
        Case("aten::mean.out", "1024x1024 fp16, last dim", (m, [-1]), {}, _e()),
        Case("aten::amax.out", "1024x1024 fp16, last dim", (m, [-1]), {}, _e()),
        Case("aten::mm.out", "512x512 @ 512x512 fp16", (_t(512, 512), _t(512, 512)), {}, _e()),
        Case(
            "aten::bmm.out",
            "8 x 256x256 @ 256x256 fp16",
            (_t(8, 256, 256), _t(8, 256, 256)),
            {},
            _e(),
        ),
        Case(
            "aten::addmm.out",
            "bias 512 + 512x512 @ 512x512 fp16",
            (_t(512), _t(512, 512), _t(512, 512)),
            {},
            _e(),
        ),
        Case(
            "aten::linear.out",
            "256x512 by weight 1024x512 + bias fp16",
            (_t(256, 512), _t(1024, 512), _t(1024)),
            {},
            _e(),
        ),
    ]


def _row(case: Case) -> list[str]:
    kiln.ascend.clear_launch_history()
    try:
        kiln.call_op(
            case.op, *case.args, out=case.out, backend="ascend", allow_fallback=False, **case.kwargs
        )
    except kiln.KilnError as error:
        return [case.op, case.label, f"no Ascend kernel ran: {error}"]
    launches = kiln.ascend.launch_history()
    kernels = ",".join(sorted({launch["kernel"] for launch in launches}))
    total = {
        key: sum(launch[key] for launch in launches)
        for key in ("gm_to_ub_bytes", "ub_to_gm_bytes", "vector_instructions", "cube_instructions")
    }
    return [
        case.op,
        case.label,
        kernels,
        str(len(launches)),
        str(max(launch["blocks"] for launch in launches)),
        f"{max(launch['ub_high_water_bytes'] for launch in launches) / 1024:.1f}",
        f"{total['gm_to_ub_bytes'] / 2**20:.2f}",
        f"{total['ub_to_gm_bytes'] / 2**20:.2f}",
        str(total["vector_instructions"]),
        str(total["cube_instructions"]),
    ]


HEADER = [
    "op",
    "shape",
    "kernel",
    "launches",
    "blocks",
    "UB high-water KiB",
    "GM->UB MiB",
    "UB->GM MiB",
    "vector instr",
    "cube instr",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--soc", default="Ascend910B", help="Ascend910B (default) or Ascend310P")
    options = parser.parse_args()
    kiln.ascend.set_soc(options.soc)
    torch.manual_seed(0)
    print(f"Ascend kernels in Kiln's emulator, SoC profile {kiln.ascend.soc()}\n")
    print("| " + " | ".join(HEADER) + " |")
    print("|" + "---|" * len(HEADER))
    for case in cases():
        print("| " + " | ".join(_row(case)) + " |")


if __name__ == "__main__":
    main()
