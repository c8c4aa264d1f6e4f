"""Half and BFloat16 cases: elementwise (same dtype and mixed with float32), casts both ways,
reductions, softmax, norms and the gemm, at the float32 cases' sizes (1M elements, 256x1024
rows, 256x256 and 64x1024x1024 products) so each compares with its float32 twin."""

from __future__ import annotations

import torch

from cases import Case

F32 = torch.float32
DTYPES = ((torch.float16, "f16"), (torch.bfloat16, "bf16"))


def _dtype_cases(dtype: torch.dtype, name: str) -> list[Case]:
    a = torch.randn(1 << 20)
    b = torch.randn(1 << 20)
    x = torch.randn(256, 1024)
    w = torch.randn(1024)
    bias = torch.randn(1024)
    m1 = torch.randn(256, 256)
    m2 = torch.randn(256, 256)
    act = torch.randn(64, 1024)
    weight = torch.randn(1024, 1024) * 0.03
    ha, hb, hx, hw, hbias = (t.to(dtype) for t in (a, b, x, w, bias))
    hm1, hm2, hact, hweight = (t.to(dtype) for t in (m1, m2, act, weight))
    out = (dtype,)
    return [
        Case(f"add 1M {name}", "aten::add.out", (ha, hb), {}, out),
        Case(f"mul 1M {name}", "aten::mul.out", (ha, hb), {}, out),
        Case(f"add 1M {name} + f32", "aten::add.out", (ha, b), {}),
        Case(f"mul 1M {name} * scalar", "aten::mul.Scalar_out", (ha, 0.5), {}, out),
        Case(f"pow 1M {name} ** tensor", "aten::pow.Tensor_Tensor_out", (ha.abs(), hb), {}, out),
        Case(f"_to_copy f32->{name} 1M", "aten::_to_copy.out", (a,), {}, out),
        Case(f"_to_copy {name}->f32 1M", "aten::_to_copy.out", (ha,), {}),
        Case(f"sum dim=-1 {name} 256x1024", "aten::sum.IntList_out", (hx, [-1]), {}, out),
        Case(f"sum dim=0 {name} 256x1024", "aten::sum.IntList_out", (hx, [0]), {}, out),
        Case(f"mean dim=-1 {name} 256x1024", "aten::mean.out", (hx, [-1]), {}, out),
        Case(f"softmax {name} 256x1024", "aten::_softmax.out", (hx, -1, False), {}, out),
        Case(
            f"layer_norm {name} 256x1024",
            "aten::native_layer_norm.out",
            (hx, [1024], hw, hbias, 1e-5),
            {},
            (dtype, dtype, dtype),
        ),
        Case(
            f"rms_norm {name} 256x1024",
            "kiln::rms_norm.out",
            (hx, hw, 1e-6),
            {},
            out,
            composite=lambda x, w, eps: torch.nn.functional.rms_norm(x, (x.shape[-1],), w, eps),
        ),
        Case(f"mm {name} 256x256", "aten::mm.out", (hm1, hm2), {}, out),
        Case(f"linear {name} 64x1024x1024", "aten::linear.out", (hact, hweight, hbias), {}, out),
        Case(f"linear {name} 1x1024x1024", "aten::linear.out", (hact[:1], hweight, hbias), {}, out),
    ]


def cases() -> list[Case]:
    torch.manual_seed(0)
    return [case for dtype, name in DTYPES for case in _dtype_cases(dtype, name)]
