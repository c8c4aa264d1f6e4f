"""The result shapes and dtypes of an operator's call in torch, from the shape rules of
``_out_shapes.py``: for the outs kiln.torch_ops allocates in a real call and for the fake
tensors of FakeTensorMode and torch.export, so eager calls and traced graphs agree. The sizes
passed to a rule are torch's own, symbolic ones included, so a rule's arithmetic and
comparisons on them are recorded as guards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import torch

from kiln._errors import KilnError
from kiln._out_shapes import OutRule

ResultSpec = tuple[tuple[int, ...], torch.dtype]


def result_specs(op: str, rule: OutRule, inputs: Mapping[str, Any]) -> list[ResultSpec]:
    """One (sizes, dtype) per out of ``op`` called with ``inputs`` (arguments by schema name);
    a shape the rule refuses is a KilnError."""
    tensors = {name: v for name, v in inputs.items() if isinstance(v, torch.Tensor)}
    try:
        shapes = rule.shapes({name: tuple(t.shape) for name, t in tensors.items()})
    except ValueError as error:
        raise KilnError(f"{op}: {error}", "InvalidArgument") from None
    return [
        (shape, tensors[source].dtype) for shape, source in zip(shapes, rule.dtypes, strict=True)
    ]
