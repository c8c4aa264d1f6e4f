"""Output shapes and dtypes of out-variant operators from their tensor inputs' shapes: the one
table of shape rules, framework-neutral.

Every frontend that allocates an operator's outs before its kernel runs reads it: kiln.torch_ops
for real calls and for fake tensors under torch.export (through ``_torch_shapes.py``, which
passes torch's sizes, symbolic ones included), and kiln.mindspore for ``ops.Custom``'s
out_shape and out_dtype. A rule checks only what it needs to compute the shapes; the kernels
check everything and name a mismatch. Shapes are tuples of sizes; a rule gives each out's shape
and the input whose dtype it takes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

Shape = tuple[int, ...]


@dataclass(frozen=True)
class OutRule:
    """``shapes`` maps the tensor inputs' shapes by schema name (an optional tensor passed as
    None is absent) to the outs' shapes; ``dtypes`` names, per out, the input whose dtype it
    takes."""

    shapes: Callable[[Mapping[str, Shape]], tuple[Shape, ...]]
    dtypes: tuple[str, ...]


def broadcast(*shapes: Shape) -> Shape:
    """NumPy/ATen broadcasting of ``shapes``; ValueError when they do not broadcast."""
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(rank):
        sizes = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0} - {1}
        if len(sizes) > 1:
            raise ValueError(f"shapes {', '.join(map(str, shapes))} do not broadcast")
        result.append(sizes.pop() if sizes else 1)
    return tuple(result)


def _gated(shapes: Mapping[str, Shape]) -> tuple[Shape, ...]:
    x = shapes["input"]
    if not x or x[-1] % 2:
        raise ValueError(f"input of shape {list(x)} must have an even last dim (x then y)")
    return (x[:-1] + (x[-1] // 2,),)


def _int8_linear(shapes: Mapping[str, Shape]) -> tuple[Shape, ...]:
    x, weight = shapes["input"], shapes["weight"]
    if not x or len(weight) != 2:
        raise ValueError(
            f"input [..., in_features] and weight [out_features, in_features] expected, got "
            f"{list(x)} and {list(weight)}"
        )
    return (x[:-1] + (weight[0],),)


def _rotary(shapes: Mapping[str, Shape]) -> tuple[Shape, ...]:
    # Without key the kernel resizes key_out to [0] (docs/custom_ops.md).
    return shapes["query"], shapes.get("key", (0,))


# Kiln's LLM operators (docs/custom_ops.md), by out variant; an operator without a rule has no
# functional form in torch, and in MindSpore its outs broadcast its tensor inputs.
RULES: dict[str, OutRule] = {
    "kiln::rms_norm.out": OutRule(lambda s: (s["input"],), ("input",)),
    "kiln::fused_add_rms_norm.out": OutRule(lambda s: (s["input"], s["input"]), ("input", "input")),
    "kiln::rotary_embedding.out": OutRule(_rotary, ("query", "query")),
    "kiln::silu_and_mul.out": OutRule(_gated, ("input",)),
    "kiln::gelu_and_mul.out": OutRule(_gated, ("input",)),
    "kiln::paged_attention.out": OutRule(lambda s: (s["query"],), ("query",)),
    "kiln::paged_attention.paged_layout_out": OutRule(lambda s: (s["query"],), ("query",)),
    "kiln::weight_int8_linear.out": OutRule(_int8_linear, ("input",)),
}


def out_shapes(op: str, tensor_inputs: Mapping[str, Shape], outs: int) -> tuple[Shape, ...]:
    """The shapes of ``op``'s outs from its tensor inputs' shapes by name (in schema order).

    Without a rule of its own every out is the broadcast of the tensor inputs: ATen's
    elementwise out variants (add.out, mul.out, relu.out, ...)."""
    rule = RULES.get(op)
    if rule is not None:
        return rule.shapes(tensor_inputs)
    if not tensor_inputs:
        raise ValueError(f"{op} has no tensor input to take its out's shape from")
    return (broadcast(*tensor_inputs.values()),) * outs


def out_dtype_sources(op: str, tensor_inputs: Sequence[str], outs: int) -> tuple[str, ...]:
    """Per out of ``op``, the tensor input whose dtype it has (the first one without a rule)."""
    rule = RULES.get(op)
    if rule is not None:
        return rule.dtypes
    if not tensor_inputs:
        raise ValueError(f"{op} has no tensor input to take its out's dtype from")
    return (tensor_inputs[0],) * outs
