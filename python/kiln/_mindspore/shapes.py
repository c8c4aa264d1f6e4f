"""Output shapes and dtypes of out-variant operators from their inputs' shapes, framework-neutral.

A frontend that allocates an operator's outs before the kernel runs (MindSpore's AOT operators)
needs them; the kernels check the same rules and name a mismatch. Shapes are tuples of ints;
a rule gives each out's shape and the input whose dtype it takes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

Shape = tuple[int, ...]


@dataclass(frozen=True)
class OutRule:
    shapes: Callable[[Mapping[str, Shape]], tuple[Shape, ...]]  # tensor inputs -> out shapes
    dtypes: tuple[str, ...]  # per out, the input whose dtype it takes


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
        raise ValueError(f"input's last dim must be even (x then y), got shape {x}")
    return (x[:-1] + (x[-1] // 2,),)


def _int8_linear(shapes: Mapping[str, Shape]) -> tuple[Shape, ...]:
    x, weight = shapes["input"], shapes["weight"]
    if not x or len(weight) != 2:
        raise ValueError(f"input [..., in] and weight [out, in] expected, got {x} and {weight}")
    return (x[:-1] + (weight[0],),)


# Kiln's LLM operators (docs/custom_ops.md); ops without a rule broadcast their tensor inputs.
RULES: dict[str, OutRule] = {
    "kiln::rms_norm.out": OutRule(lambda s: (s["input"],), ("input",)),
    "kiln::fused_add_rms_norm.out": OutRule(lambda s: (s["input"], s["input"]), ("input", "input")),
    "kiln::rotary_embedding.out": OutRule(lambda s: (s["query"], s["key"]), ("query", "query")),
    "kiln::silu_and_mul.out": OutRule(_gated, ("input",)),
    "kiln::gelu_and_mul.out": OutRule(_gated, ("input",)),
    "kiln::paged_attention.out": OutRule(lambda s: (s["query"],), ("query",)),
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
