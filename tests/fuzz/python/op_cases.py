"""kiln.call_op inputs for the bindings' fuzz harness, and torch's answer to compare with.

A case binds random values to an operator's schema (kiln._manifest): often shapes that fit
together (a template per operator family), else anything, with wrong types, counts and
aliasing outs mixed in. torch runs the same out variant on copies first; when both compute on
a case without aliasing, their outs must agree."""

from __future__ import annotations

import cmath
import math
import random
from dataclasses import dataclass, field
from typing import Any

import torch
import values

from kiln._manifest import Argument, Operator


@dataclass
class OpCase:
    op: Operator
    args: list[Any]
    kwargs: dict[str, Any]
    out: Any  # the out tensor, a tuple of them, or None (in-place ops write self)
    inputs: dict[str, Any]  # by schema name, those given
    outs: dict[str, Any]  # by schema name
    comparable: bool  # no aliasing or odd out: torch's outs are the expected ones
    notes: list[str] = field(default_factory=list)


def _template(rng: random.Random, op: Operator) -> dict[str, Any]:
    """Inputs whose shapes fit the operator (names as in its schema), for a share of the cases
    that reach the kernels' computing paths; empty when there is no template."""
    kind = values.dtype(rng) if rng.random() < 0.3 else rng.choice(values.COMMON_DTYPES[:6])
    t = lambda sizes, k=kind: values.tensor(rng, sizes, k)  # noqa: E731
    base = op.name.split("::")[1].split(".")[0]
    n, k, m, b = (rng.randint(0, 5) for _ in range(4))
    if base == "mm":
        return {"self": t([n, k]), "mat2": t([k, m])}
    if base == "bmm":
        return {"self": t([b, n, k]), "mat2": t([b, k, m])}
    if base == "addmm":
        return {
            "self": t(rng.choice([[m], [n, m], [1, m], []])),
            "mat1": t([n, k]),
            "mat2": t([k, m]),
        }
    if base == "convolution":
        groups = rng.choice([1, 1, 2])
        cin, cout = groups * rng.randint(1, 2), groups * rng.randint(1, 2)
        spatial = rng.choice([1, 2, 2])
        kernel = [rng.randint(1, 3) for _ in range(spatial)]
        return {
            "input": t([rng.randint(0, 2), cin] + [rng.randint(1, 6) for _ in range(spatial)]),
            "weight": t([cout, cin // groups, *kernel]),
            "bias": t([cout]) if rng.random() < 0.6 else None,
            "stride": [rng.randint(1, 2)] * spatial,
            "padding": [rng.randint(0, 1)] * spatial,
            "dilation": [rng.randint(1, 2)] * spatial,
            "transposed": rng.random() < 0.2,
            "output_padding": [0] * spatial,
            "groups": groups,
        }
    if base == "max_pool2d_with_indices":
        return {
            "self": t([rng.randint(0, 2), rng.randint(1, 3), rng.randint(1, 7), rng.randint(1, 7)]),
            "kernel_size": [rng.randint(1, 3), rng.randint(1, 3)],
            "stride": rng.choice([[], [1, 1], [2, 2], [2, 1]]),
            "padding": rng.choice([0, [0, 0], [1, 1]]),
            "dilation": rng.choice([1, [1, 1], [2, 1]]),
            "ceil_mode": rng.random() < 0.3,
        }
    if base == "native_layer_norm":
        sizes = values.shape(rng)
        tail = sizes[len(sizes) - rng.randint(0, len(sizes)) :]
        return {
            "input": t(sizes),
            "normalized_shape": tail,
            "weight": t(tail) if rng.random() < 0.7 else None,
            "bias": t(tail) if rng.random() < 0.7 else None,
            "eps": 1e-5,
        }
    if base == "_native_batch_norm_legit_no_training":
        c = rng.randint(1, 4)
        sizes = [rng.randint(0, 3), c] + [rng.randint(1, 4) for _ in range(rng.randint(0, 2))]
        return {
            "input": t(sizes),
            "weight": t([c]) if rng.random() < 0.7 else None,
            "bias": t([c]) if rng.random() < 0.7 else None,
            "running_mean": t([c]),
            "running_var": t([c]),  # negative variances too: the kernel must cope
            "momentum": 0.1,
            "eps": 1e-5,
        }
    if base in ("add", "sub", "mul", "div", "where"):
        sizes = values.shape(rng)
        names = ["condition", "self", "other"] if base == "where" else ["self", "other"]
        chosen: dict[str, Any] = {}
        for name in names:
            # Broadcastable: a suffix of the shape with some dimensions 1.
            mine = [1 if rng.random() < 0.25 else s for s in sizes[rng.randint(0, len(sizes)) :]]
            kind_here = torch.bool if name == "condition" else kind
            if rng.random() < 0.3:
                kind_here = values.dtype(rng)
            chosen[name] = values.tensor(rng, mine, kind_here)
        return chosen
    if base == "cat":
        sizes = values.shape(rng)
        dim = rng.randint(-len(sizes), max(0, len(sizes) - 1)) if sizes else 0
        tensors = []
        for _ in range(rng.randint(0, 4)):
            mine = list(sizes)
            if mine:
                mine[dim] = rng.randint(0, 3)
            tensors.append(t(mine) if rng.random() < 0.9 else t([0]))
        return {"tensors": tensors, "dim": dim}
    if base == "split_with_sizes_copy":
        sizes = values.shape(rng) or [3]
        dim = rng.randrange(len(sizes))
        splits, left = [], sizes[dim]
        while left > 0:
            splits.append(rng.randint(0, left))
            left -= splits[-1]
        return {"self": t(sizes), "split_sizes": splits or [0], "dim": dim}
    if base in ("view_copy", "expand_copy"):
        sizes = values.shape(rng)
        target = list(sizes)
        if base == "view_copy" and target and rng.random() < 0.5:
            target[rng.randrange(len(target))] = -1
        if base == "expand_copy":
            target = [rng.randint(1, 3)] * rng.randint(0, 1) + target
        return {"self": t(sizes), "size": target}
    return {}


def _value_for(rng: random.Random, arg: Argument, rank: int) -> Any:
    kind = arg.kind
    if kind == "Tensor":
        return values.tensor(rng) if rng.random() < 0.95 else values.wrong(rng)
    if kind == "OptionalTensor":
        return None if rng.random() < 0.3 else values.tensor(rng)
    if kind == "TensorList":
        items: list[Any] = [values.tensor(rng) for _ in range(rng.randint(0, 4))]
        if rng.random() < 0.05:
            items.append(rng.choice([None, 1, "t"]))
        return tuple(items) if rng.random() < 0.2 else items
    if kind == "Int":
        return values.integer(rng, rank)
    if kind in ("IntList", "OptionalIntList"):
        if kind == "OptionalIntList" and rng.random() < 0.3:
            return None
        return values.int_list(rng, rank)
    if kind == "Bool":
        return rng.random() < 0.5 if rng.random() < 0.9 else rng.choice([0, 1, None, "yes", 2])
    if kind == "Double":
        return values.floating(rng)
    if kind == "Scalar":
        return values.scalar(rng)
    if kind == "String":
        return rng.choice(["none", "tanh", "", "nonE", None, 3])
    if kind == "OptionalScalarType":
        return rng.choice([None, None, values.dtype(rng), 6, "float"])
    if kind == "OptionalMemoryFormat":
        choices = [None, torch.contiguous_format, torch.preserve_format, torch.channels_last, 0]
        return rng.choice(choices)
    return values.wrong(rng)


def torch_packet(op: Operator) -> Any:
    """torch's overload of the same out variant, None when torch has none (dim_order_ops)."""
    namespace, rest = op.name.split("::")
    if namespace != "aten":
        return None
    name, _, overload = rest.partition(".")
    return getattr(getattr(torch.ops.aten, name), overload or "default", None)


def _out_like(
    rng: random.Random, reference: torch.Tensor | None, kind: torch.dtype
) -> tuple[Any, bool]:
    """An out for one out argument, and whether torch's answer is what it must hold after the
    call: the right shape (from torch's answer) or an empty one to be resized (yes), and now and
    then a wrong or odd one (no)."""
    choice = rng.random()
    if reference is not None and choice < 0.4:
        out = torch.full(reference.shape, 7, dtype=reference.dtype)
        if out.dim() >= 2 and rng.random() < 0.3:  # the right shape, transposed in memory
            out = out.transpose(0, 1).contiguous().transpose(0, 1)
        return out, True
    if choice < 0.8:
        return torch.empty(0, dtype=reference.dtype if reference is not None else kind), True
    return values.tensor(rng), False


def make_case(rng: random.Random, op: Operator) -> tuple[OpCase, dict[str, Any]]:
    """A case for `op`, and the torch outs to expect (name -> tensor or list; empty when torch
    refused or has no such op, or the case is not comparable)."""
    chosen = _template(rng, op) if rng.random() < 0.6 else {}
    rank = 4
    for value in chosen.values():
        if isinstance(value, torch.Tensor):
            rank = value.dim()
            break
    inputs: dict[str, Any] = {}
    for arg in op.inputs:
        if arg.name in chosen and rng.random() < 0.93:
            inputs[arg.name] = chosen[arg.name]
        elif arg.default is not None and rng.random() < 0.5:
            continue  # the schema default
        else:
            inputs[arg.name] = _value_for(rng, arg, rank)
    first = next((v for v in inputs.values() if isinstance(v, torch.Tensor)), None)
    kind = first.dtype if first is not None else torch.float32
    if rng.random() < 0.2:
        kind = values.dtype(rng)
    notes: list[str] = []

    # torch's answer, on copies, with empty outs that it resizes.
    expected: dict[str, Any] = {}
    packet = torch_packet(op)
    if packet is not None:
        expected = _torch_outs(packet, op, inputs, kind)

    comparable = bool(expected)
    outs: dict[str, Any] = {}
    for arg in op.outs:
        reference = expected.get(arg.name)
        if arg.kind == "TensorList":  # split's outs: a list
            refs = reference if isinstance(reference, list) else []
            count = len(refs) if refs and rng.random() < 0.8 else rng.randint(0, 4)
            made = [_out_like(rng, refs[i] if i < len(refs) else None, kind) for i in range(count)]
            outs[arg.name] = [out for out, _ in made]
            comparable = comparable and count == len(refs) and all(ok for _, ok in made)
        else:
            outs[arg.name], ok = _out_like(rng, reference, kind)
            comparable = comparable and ok

    # Outs that alias inputs: the same tensor, a view over part of it, or two outs in one.
    tensors_in = [v for v in inputs.values() if isinstance(v, torch.Tensor) and _dense(v)]
    if op.outs and rng.random() < 0.15 and tensors_in:
        target = rng.choice(op.outs).name
        source = rng.choice(tensors_in)
        how = rng.randrange(3) if source.is_contiguous() else 0
        alias = source if how == 0 else source.view(-1)[1:] if how == 1 else source.view(-1)
        if op.outs[0].kind == "TensorList":
            outs[target] = [alias]
        else:
            outs[target] = alias
        notes.append(f"out {target} aliases an input ({['same', 'offset', 'flat'][how]})")
        comparable = False
    if len(op.outs) > 1 and rng.random() < 0.1 and op.outs[0].kind != "TensorList":
        shared = torch.empty(0, dtype=kind)
        outs[op.outs[0].name] = shared
        outs[op.outs[1].name] = shared
        notes.append("two outs are one tensor")
        comparable = False

    args: list[Any] = []
    kwargs: dict[str, Any] = {}
    positional = True
    for arg in op.inputs:
        if arg.name not in inputs:
            positional = False  # later ones go by name
            continue
        if positional and not arg.kwarg_only and rng.random() < 0.85:
            args.append(inputs[arg.name])
        else:
            positional = False
            kwargs[arg.name] = inputs[arg.name]
    out: Any = None
    if op.outs:
        ordered = [outs[a.name] for a in op.outs]
        if rng.random() < 0.1:  # outs by name
            kwargs.update(outs)
        else:
            out = ordered[0] if len(ordered) == 1 else tuple(ordered)
    # Wrong argument counts and names.
    if rng.random() < 0.04:
        args.append(values.tensor(rng))
        comparable = False
    if rng.random() < 0.03 and args:
        args.pop()
        comparable = False
    if rng.random() < 0.02:
        kwargs["no_such_argument"] = 1
        comparable = False
    case = OpCase(op, args, kwargs, out, inputs, outs, comparable, notes)
    return case, (expected if comparable else {})


def _dense(tensor: torch.Tensor) -> bool:
    return tensor.layout == torch.strided and not tensor.is_meta and not tensor.is_quantized


def _clone(value: Any) -> Any:
    if isinstance(value, torch.Tensor):
        return value.detach().clone() if _dense(value) else value
    if isinstance(value, (list, tuple)):
        return type(value)(_clone(v) for v in value)
    return value


def _torch_outs(
    packet: Any, op: Operator, inputs: dict[str, Any], kind: torch.dtype
) -> dict[str, Any]:
    """Runs torch's out variant on copies of the inputs with empty outs: name -> out (a list
    for a list out); {} when torch refuses the case or it is not one to compare."""
    for value in inputs.values():
        items = value if isinstance(value, (list, tuple)) else [value]
        for item in items:
            if isinstance(item, torch.Tensor) and (not _dense(item) or _huge(item)):
                return {}
            # torch's own kernels disagree with themselves on infinities (its vectorised gelu
            # gives NaN for inf): only finite inputs are compared.
            if isinstance(item, torch.Tensor) and not _finite(item):
                return {}
            # Nor infinite scalars: torch skips alpha * (an empty product), IEEE makes it NaN.
            if isinstance(item, (float, complex)) and not cmath.isfinite(item):
                return {}
    if kind in values.QUANTIZED:  # torch's quantized cat.out reads a null pointer
        return {}
    if op.name == "aten::convolution.out" and kind in (torch.float16, torch.bfloat16):
        return {}  # torch 2.13's oneDNN half convolution segfaults on some dilated shapes
    try:
        copies = {name: _clone(value) for name, value in inputs.items()}
        outs: dict[str, Any] = {}
        for arg in op.outs:
            if arg.kind == "TensorList":  # split's outs: one per split size
                splits = inputs.get("split_sizes")
                if not isinstance(splits, list):
                    return {}
                outs[arg.name] = [torch.empty(0, dtype=kind) for _ in splits]
            else:
                outs[arg.name] = torch.empty(0, dtype=kind)
        if op.name == "aten::max_pool2d_with_indices.out":
            outs["indices"] = torch.empty(0, dtype=torch.int64)
        packet(**copies, **outs)
    except Exception:
        return {}
    if not op.outs:  # in place: self
        return {"self": copies["self"]} if "self" in copies else {}
    return outs


def _finite(tensor: torch.Tensor) -> bool:
    if not (tensor.is_floating_point() or tensor.is_complex()):
        return True
    try:
        # Finite and far from overflow: a sum of squares of 1e300 is inf in one library's order
        # of operations and NaN in another's.
        return bool((torch.isfinite(tensor) & (tensor.abs() < 1e30)).all())
    except Exception:  # a dtype torch has no isfinite for
        return False


def huge_result(op: Operator, inputs: dict[str, Any]) -> bool:
    """Whether torch, asked on the meta device, gives `op` on `inputs` an out of more than 2**28
    elements: work legitimately too large for the time an input gets (an mm of a [2**31, 0] by
    a [0, 2] writes 2**32 zeros), which Kiln and torch would both do."""
    packet = torch_packet(op)
    if packet is None:
        return False

    def meta(value: Any) -> Any:
        if isinstance(value, torch.Tensor) and _dense(value):
            return torch.empty_strided(
                value.shape, value.stride(), dtype=value.dtype, device="meta"
            )
        if isinstance(value, (list, tuple)):
            return type(value)(meta(v) for v in value)
        return value

    first = next((v for v in inputs.values() if isinstance(v, torch.Tensor)), None)
    # Outs of the inputs' dtype, else of those that other ops write.
    for kind in (getattr(first, "dtype", torch.float32), torch.float32, torch.int64, torch.bool):
        try:
            outs = {
                arg.name: torch.empty(0, dtype=kind, device="meta")
                for arg in op.outs
                if arg.kind != "TensorList"
            }
            result = packet(**{name: meta(value) for name, value in inputs.items()}, **outs)
        except Exception:
            continue
        results = result if isinstance(result, (list, tuple)) else [result]
        return any(isinstance(r, torch.Tensor) and r.numel() > 1 << 28 for r in results)
    return False


def huge_copy(inputs: dict[str, Any]) -> bool:
    """Whether an input is a strided view (an expand, most often) of more than 2**24 elements:
    kiln.call_op makes it a dense copy before the kernel runs, legitimate work that a sanitized
    build cannot finish in the time an input gets."""

    def strided_and_big(value: Any) -> bool:
        if isinstance(value, (list, tuple)):
            return any(strided_and_big(v) for v in value)
        return (
            isinstance(value, torch.Tensor)
            and _dense(value)
            and value.numel() > 1 << 24
            and not value.is_contiguous()
        )

    return any(strided_and_big(v) for v in inputs.values())


def _huge(tensor: torch.Tensor) -> bool:
    """Too big for torch's reference in the time an input gets: many elements, or an empty
    tensor whose other dimensions torch still loops over or multiplies into an out (layer norm
    over 238609294 x 3 empty rows; mm of a [2**31, 0] by a [0, 2])."""
    return tensor.numel() > 1 << 20 or math.prod(max(size, 1) for size in tensor.shape) > 1 << 24


def mismatch(kiln_out: Any, torch_out: Any) -> str:
    """Why kiln's out differs from torch's ("" when they agree)."""
    if isinstance(torch_out, list):
        if not isinstance(kiln_out, list) or len(kiln_out) != len(torch_out):
            return "different number of outs"
        for a, b in zip(kiln_out, torch_out, strict=True):
            why = mismatch(a, b)
            if why:
                return why
        return ""
    if tuple(kiln_out.shape) != tuple(torch_out.shape):
        return f"shape {tuple(kiln_out.shape)} != torch's {tuple(torch_out.shape)}"
    if kiln_out.dtype != torch_out.dtype:
        return f"dtype {kiln_out.dtype} != torch's {torch_out.dtype}"
    if kiln_out.numel() == 0:
        return ""
    kind = torch_out.dtype
    if kind.is_complex:
        a, b = kiln_out.to(torch.complex128), torch_out.to(torch.complex128)
    else:
        a, b = kiln_out.to(torch.float64), torch_out.to(torch.float64)
    if kind in (torch.float16, torch.bfloat16, torch.complex32):
        rtol, atol = 2e-2, 2e-2
    elif kind in (torch.float32, torch.complex64):
        rtol, atol = 1e-4, 1e-5
    elif kind.is_floating_point or kind.is_complex:
        rtol, atol = 1e-9, 1e-12
    else:
        rtol, atol = 0.0, 0.0
    close = torch.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    if bool(close.all()):
        return ""
    where = (~close).nonzero()[0].tolist()
    return f"value at {where}: {a[tuple(where)].item()} != torch's {b[tuple(where)].item()}"
