"""The operators Kiln's XNNPACK delegate calls for one XNNPACK graph, with their kernel keys, so
that a library selected from a delegated program holds what the delegate needs at load.

NODE_OPERATORS mirrors the lowering of runtime/executor/delegates/xnnpack/xnnpack_nodes.cpp
(GraphBuilder::lower_node: node kind -> ATen operator); the conversions around it mirror
xnnpack_builder.cpp (layout changes with permute_copy, weights brought to the input's dtype with
_to_copy, outputs written with clone, fused activations with clamp). Change them together:
tests/program/test_xnnpack_selection.py builds a runner from this selection alone and runs a
delegated program on it.

Keys follow the runtime's build_kernel_key on the delegate's stacks: one ``<dtype>;<dim order>``
entry per tensor argument, in schema order; the delegate's tensors are dense (dim order
0..rank-1). Where the lowering's choice depends on more than the graph says (which layout a value
is held in), the operators it may call are all selected: a few kernels too many, never one too
few.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from kiln.codegen.model.kernel_keys import DTYPE_CODES, KernelKey, KeyArg
from kiln.codegen.pte import xnnpack_graph_generated

xg: Any = xnnpack_graph_generated  # flatc's Python output carries no type hints

# The operators each node kind lowers to (xnnpack_nodes.cpp). Node kinds not listed are refused
# by the delegate at load (NotSupported naming the node), so they select nothing.
_UNARY = {
    "Sigmoid": "aten::sigmoid.out",
    "Tanh": "aten::tanh.out",
    "Hardswish": "aten::hardswish.out",
    "Abs": "aten::abs.out",
    "Negate": "aten::neg.out",
    "SquareRoot": "aten::sqrt.out",
    "ReciprocalSquareRoot": "aten::rsqrt.out",
    "Floor": "aten::floor.out",
    "Ceiling": "aten::ceil.out",
    "Exp": "aten::exp.out",
    "Log": "aten::log.out",
    "Sin": "aten::sin.out",
    "Cos": "aten::cos.out",
    "Gelu": "aten::gelu.out",
    "Elu": "aten::elu.out",
    "LeakyRelu": "aten::leaky_relu.out",
    "Softmax": "aten::_softmax.out",
    "Clamp": "aten::clamp.out",
    "Convert": "aten::_to_copy.out",
    "Copy": "aten::clone.out",
    "ConstantPad": "aten::constant_pad_nd.out",
    "AvgPool2d": "aten::avg_pool2d.out",
    "GlobalAvgPool2d": "aten::mean.out",
}
_BINARY = {
    "Add": "aten::add.out",
    "Subtract": "aten::sub.out",
    "Multiply": "aten::mul.out",
    "Divide": "aten::div.out",
    "Minimum": "aten::minimum.out",
    "Maximum": "aten::maximum.out",
}
_CONCATENATE = ("Concatenate2", "Concatenate3", "Concatenate4", "Concatenate5")
NODE_OPERATORS: dict[str, tuple[str, ...]] = {
    **{kind: (op,) for kind, op in _UNARY.items()},
    **{kind: (op,) for kind, op in _BINARY.items()},
    **{kind: ("aten::cat.out",) for kind in _CONCATENATE},
    "Square": ("aten::mul.out",),
    # mm / addmm (bias) on a constant filter, linear on a computed one.
    "FullyConnected": ("aten::mm.out", "aten::addmm.out", "aten::linear.out"),
    "BatchMatMul": ("aten::bmm.out",),
    "Conv2d": ("aten::convolution.out",),
    "DepthwiseConv2d": ("aten::convolution.out",),
    "MaxPool2d": ("aten::max_pool2d_with_indices.out",),
    "Transpose": ("aten::permute_copy.out",),
    "Reshape": ("aten::view_copy.out",),  # only into an output of the call; else a view
    "Slice": ("aten::slice_copy.Tensor_out",),
}

# Conversions the builder adds (xnnpack_builder.cpp).
PERMUTE = "aten::permute_copy.out"  # a 4-D value between its NHWC and NCHW holdings
TO_COPY = "aten::_to_copy.out"  # weights into the input's dtype (fp16 graphs keep fp32 weights)
CLONE = "aten::clone.out"  # a transpose that moves no byte, into an output of the call
CLAMP = "aten::clamp.out"  # a node's fused activation
# Node kinds that run on NCHW tensors, and so hold 4-D values in two layouts.
_NCHW_KINDS = {"Conv2d", "DepthwiseConv2d", "MaxPool2d", "AvgPool2d", "GlobalAvgPool2d"}

# Quantized values (the builder's QuantKind): held as Float, converted with these operators.
DEQUANTIZE_PER_TENSOR = "quantized_decomposed::dequantize_per_tensor.out"
QUANTIZE_PER_TENSOR = "quantized_decomposed::quantize_per_tensor.out"
DEQUANTIZE_PER_CHANNEL = "quantized_decomposed::dequantize_per_channel.out"
PER_TOKEN = (
    "quantized_decomposed::choose_qparams_per_token_asymmetric.out",
    "quantized_decomposed::quantize_per_token.out",
    "quantized_decomposed::dequantize_per_token.out",
)

_FLOAT = DTYPE_CODES["Float"]
_LONG = DTYPE_CODES["Long"]
_NO_VALUE = 0xFFFFFFFF  # an absent bias
_TRANSPOSED = 1  # XNNPACK's flag: the filter (or second operand) is transposed

# XNNPACK dtypes Kiln runs -> the ScalarType it holds them in; quantized ones -> their integers'.
_HELD = {"FP32": "Float", "FP16": "Half", "BF16": "BFloat16", "INT32": "Int"}
_STORED = {
    "QINT8": "Char",
    "QUINT8": "Byte",
    "QINT32": "Int",
    "QCINT8": "Char",
    "QCINT32": "Int",
    "QDINT8": "Char",
    "QBINT4": "Byte",  # 4-bit groups, unpacked by the delegate itself at load: no operator
}
_DTYPE_NAMES = {code: name for name, code in vars(xg.DataType).items() if not name.startswith("_")}
_KIND_NAMES = {code: name for name, code in vars(xg.NodeKind).items() if not name.startswith("_")}
_QUANT_NAMES = {
    code: name for name, code in vars(xg.Quantization).items() if not name.startswith("_")
}


class GraphError(ValueError):
    """A graph whose ids or values do not fit together; the message says where."""


@dataclass(frozen=True)
class Value:
    """What keys need of one graph value."""

    dtype: int | None  # the ScalarType the delegate holds it in; None: one it does not run
    rank: int
    constant: bool
    output: bool
    stored: int | None = None  # quantized: its integers' ScalarType
    quantization: str = ""  # quantized: "TensorQuant", "ChannelQuant", "TokenDynamicQuant", ...

    def arg(self, rank: int | None = None, dtype: int | None = None) -> KeyArg:
        """This value's key entry, viewed with ``rank`` dims or converted to ``dtype``."""
        code = dtype if dtype is not None else self.dtype
        assert code is not None
        return KeyArg(code, tuple(range(self.rank if rank is None else rank)))


def _value(index: int, raw: Any) -> Value:
    tensor = raw.value if raw is not None else None
    quantization = ""
    if isinstance(tensor, xg.QuantizedTensorValueT):
        quantization = _QUANT_NAMES.get(tensor.quantizationType, "")
        tensor = tensor.tensor
    if not isinstance(tensor, xg.TensorValueT):
        raise GraphError(f"value {index} is not a tensor")
    rank = 0 if tensor.dims is None else len(tensor.dims)
    output = bool(tensor.flags & 2)
    name = _DTYPE_NAMES.get(tensor.dtype, "")
    if quantization and name in _STORED:
        # The builder holds a quantized value as Float (the numbers its integers stand for).
        stored = DTYPE_CODES[_STORED[name]]
        return Value(_FLOAT, rank, tensor.constant != 0, output, stored, quantization)
    held = DTYPE_CODES[_HELD[name]] if name in _HELD and not quantization else None
    return Value(held, rank, tensor.constant != 0, output)


@dataclass(frozen=True)
class _Graph:
    values: tuple[Value, ...]

    def get(self, node: str, role: str, index: Any) -> Value | None:
        """The value a node's ``role`` names; None for a value the delegate does not run."""
        index = int(index)
        if not 0 <= index < len(self.values):
            raise GraphError(f"{node}: its {role} is value {index} of {len(self.values)}")
        return self.values[index] if self.values[index].dtype is not None else None


Call = tuple[str, KernelKey]


def _key(*args: KeyArg) -> KernelKey:
    return KernelKey(tuple(args))


def _node_calls(kind: str, fields: Any, graph: _Graph, where: str) -> Iterator[Call]:
    """The calls one node lowers to, its conversions of weights included."""
    get = graph.get
    if kind in _BINARY or kind == "BatchMatMul":
        a, b = get(where, "first input", fields.input1), get(where, "second input", fields.input2)
        out = get(where, "output", fields.output)
        if a is None or b is None or out is None:
            return
        if kind == "BatchMatMul":  # on 3-D views
            yield "aten::bmm.out", _key(a.arg(3), b.arg(3), out.arg(3))
            if fields.flags & _TRANSPOSED:
                yield PERMUTE, _key(b.arg(3), b.arg(3))
            return
        yield _BINARY[kind], _key(a.arg(), b.arg(), out.arg())
        return
    if kind == "FullyConnected":
        yield from _fully_connected(fields, graph, where)
        return
    if kind in ("Conv2d", "DepthwiseConv2d"):
        yield from _convolution(fields, graph, where)
        return
    if kind in _CONCATENATE:
        out = get(where, "output", fields.output)
        if out is not None:  # a TensorList is no part of a key
            yield "aten::cat.out", _key(out.arg())
        return
    x, out = get(where, "input", fields.input), get(where, "output", fields.output)
    if x is None or out is None:
        return
    if kind == "Square":
        yield "aten::mul.out", _key(x.arg(), x.arg(), out.arg())
    elif kind == "MaxPool2d":
        yield NODE_OPERATORS[kind][0], _key(x.arg(), out.arg(), out.arg(dtype=_LONG))
    elif kind == "Transpose":
        yield PERMUTE, _key(x.arg(), out.arg())
        if out.output:
            yield CLONE, _key(x.arg(), out.arg())
    elif kind == "Reshape":
        if out.output:
            yield NODE_OPERATORS[kind][0], _key(x.arg(), out.arg())
    elif kind == "Slice":
        yield NODE_OPERATORS[kind][0], _key(x.arg(), out.arg())
        yield CLONE, _key(x.arg(), out.arg())  # a slice of everything is a copy
    elif kind in _UNARY:
        yield _UNARY[kind], _key(x.arg(), out.arg())


def _weights(weight: Value, x: Value, rank: int) -> Iterator[Call]:
    """A filter or bias brought to the input's dtype, when it has another."""
    if weight.dtype != x.dtype:
        yield TO_COPY, _key(weight.arg(rank), weight.arg(rank, x.dtype))


def _fully_connected(fields: Any, graph: _Graph, where: str) -> Iterator[Call]:
    x, w = graph.get(where, "input", fields.input), graph.get(where, "filter", fields.filter)
    out = graph.get(where, "output", fields.output)
    bias = None if fields.bias == _NO_VALUE else graph.get(where, "bias", fields.bias)
    if x is None or w is None or out is None:
        return
    yield from _weights(w, x, 2)
    if bias is not None:
        yield from _weights(bias, x, 1)
    for dtype in {w.dtype, x.dtype}:  # transposed before or after the conversion
        yield PERMUTE, _key(w.arg(2, dtype), w.arg(2, dtype))
    b = [bias.arg(1, x.dtype)] if bias is not None else []
    if not w.constant:
        yield "aten::linear.out", _key(x.arg(), w.arg(2, x.dtype), *b, out.arg())
    elif bias is None:  # on x viewed as rows
        yield "aten::mm.out", _key(x.arg(2), w.arg(2, x.dtype), out.arg(2))
    else:
        yield "aten::addmm.out", _key(*b, x.arg(2), w.arg(2, x.dtype), out.arg(2))


def _convolution(fields: Any, graph: _Graph, where: str) -> Iterator[Call]:
    x, w = graph.get(where, "input", fields.input), graph.get(where, "filter", fields.filter)
    out = graph.get(where, "output", fields.output)
    bias = None if fields.bias == _NO_VALUE else graph.get(where, "bias", fields.bias)
    if x is None or w is None or out is None:
        return
    yield PERMUTE, _key(w.arg(), w.arg())  # the filter from [o, kh, kw, i] to [o, i, kh, kw]
    yield from _weights(w, x, 4)
    b = []
    if bias is not None:
        yield from _weights(bias, x, 1)
        b = [bias.arg(1, x.dtype)]
    yield "aten::convolution.out", _key(x.arg(), w.arg(4, x.dtype), *b, out.arg())


def _clamp(kind: str, fields: Any, graph: _Graph, where: str) -> Iterator[Call]:
    """A fused activation, on the node's output (a fully connected node's: on its rows' view)."""
    out = graph.get(where, "output", fields.output) if hasattr(fields, "output") else None
    if out is None:
        return
    yield CLAMP, _key(out.arg(), out.arg())
    if kind == "FullyConnected":
        yield CLAMP, _key(out.arg(2), out.arg(2))


def _quantized_calls(value: Value) -> Iterator[Call]:
    """The (de)quantize operators of one quantized value, held as Float by the delegate."""
    assert value.stored is not None
    stored, real = value.arg(dtype=value.stored), value.arg(dtype=_FLOAT)
    if value.quantization == "TensorQuant":
        yield DEQUANTIZE_PER_TENSOR, _key(stored, real)
        if not value.constant:
            yield QUANTIZE_PER_TENSOR, _key(real, stored)
    elif value.quantization == "ChannelQuant":
        # Its scales and zero points are tensors the builder makes from the graph's floats: their
        # dtypes are its choice, so the operator is selected with every dtype (the default key).
        yield DEQUANTIZE_PER_CHANNEL, KernelKey()
    elif value.quantization == "TokenDynamicQuant":
        # The same for the scales and zero points chosen at run time.
        for op in PER_TOKEN:
            yield op, KernelKey()


def xnnpack_calls(graph: Any) -> list[Call]:
    """(operator, kernel key) of every call Kiln's XNNPACK delegate may make for ``graph``
    (a decoded GraphT), deduplicated; GraphError when its ids do not fit its values."""
    values = _Graph(tuple(_value(i, raw) for i, raw in enumerate(graph.values or [])))
    calls: list[Call] = []
    nchw = False
    for index, node in enumerate(graph.nodes or []):
        if node is None:
            raise GraphError(f"node {index} is missing")
        kind = _KIND_NAMES.get(node.nodeType, "")
        where = f"node {index} ({kind or 'unknown kind'})"
        if node.node is None and node.nodeType != xg.NodeKind.NONE:
            raise GraphError(f"{where} has no fields")
        if kind not in NODE_OPERATORS:
            continue
        calls += _node_calls(kind, node.node, values, where)
        if node.clamp is not None and kind != "Clamp":
            calls += _clamp(kind, node.node, values, where)
        rank = int(node.node.rank) if kind == "Transpose" else 0
        nchw = nchw or kind in _NCHW_KINDS or rank == 4
    if nchw:  # any 4-D value may be converted between its two holdings
        for value in values.values:
            if value.rank == 4 and value.dtype is not None:
                calls.append((PERMUTE, _key(value.arg(), value.arg())))
    for value in values.values:
        if value.stored is not None:
            calls += _quantized_calls(value)
    return list(dict.fromkeys(calls))
