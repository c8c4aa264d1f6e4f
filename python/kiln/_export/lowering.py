"""A torch.export program in core ATen -> a LoweredProgram: out-variant calls over numbered tensors.

Each functional call becomes its out variant with fresh out tensors (``out_calls.py``); a view or
copy that keeps its input's bytes (``view``, ``squeeze``, ``clone``, ...) shares its input's
memory instead; a call on constants is computed now (``constants.py``). A Python number where the
schema wants a tensor selects the operator's Scalar overload (``mul.Tensor`` ->
``mul.Scalar_out``) or, without one, becomes a 0-dim constant tensor. Parameters and constants
become constant tensors when used; a buffer the graph mutates becomes a buffer tensor, written
back at the end of each run with ``aten::copy_``. Kiln's custom operators (``kiln::rms_norm``)
lower to their out variants like ATen's; those that write their arguments come wrapped in
``auto_functionalized`` (``mutations.py``). With dynamic shapes, tensors carry their bounds
and the nodes that compute sizes become ExecuTorch's prim operators (``symbolic.py``). Anything a
program cannot express is an ExportError naming the node and the operator.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any

import torch
from torch.export import ExportedProgram
from torch.export.graph_signature import InputKind, InputSpec, OutputKind
from torch.utils import _pytree as pytree

from kiln._errors import ExportError
from kiln._export.arguments import ArgumentError, TensorRef, scalar_type_code
from kiln._export.constants import LazyConstant, fold, number_tensor, tensor_bytes
from kiln._export.graph import (
    Arg,
    BoolArg,
    Call,
    DoubleArg,
    IntArg,
    LoweredProgram,
    NoneArg,
    Role,
    SymIntArg,
    TensorArg,
    TensorSpec,
)
from kiln._export.mutations import WRAPPERS, lower_auto_functionalized
from kiln._export.nodes import node_error, op_name, where
from kiln._export.operators import (
    WRITE_BACK_OP,
    functional_name,
    out_variant,
    resolve,
    unavailable_reason,
)
from kiln._export.out_calls import bind, numbers_for_tensors, out_arguments, scalar_sibling
from kiln._export.symbolic import (
    ATEN_SIZE_OPERATORS,
    PRIM_OPERATORS,
    SYMBOLIC,
    bounds,
    has_symbolic_layout,
    number_arg,
)
from kiln.codegen.wording import with_article

# Checks torch.export inserts, which an out-variant program does not execute.
_ASSERTIONS = frozenset(
    {
        "_assert_tensor_metadata",
        "_assert_async",
        "_assert_scalar",
        "sym_constrain_range",
        "sym_constrain_range_for_size",
    }
)
_SYMBOLIC_PROBLEM = (
    "it computes a number known only at run time that programs have no operator for; sizes "
    "(x.shape[0], x.numel(), x.item()) and Python arithmetic on them are what programs compute"
)
# Operators whose result has the same elements in the same order as their first argument (every
# tensor of a program is contiguous). Their result can share the argument's memory: no call
# overwrites a tensor once written, except the final write-back into mutable buffers.
_SAME_BYTES = frozenset(
    {
        "view",
        "_unsafe_view",
        "squeeze",
        "squeeze.dim",
        "squeeze.dims",
        "unsqueeze",
        "alias",
        "detach",
        "clone",
        "_to_copy",
    }
)


@dataclass(frozen=True)
class _NestedGraph:
    """A subgraph read by get_attr (the branches of torch.cond, the body of a loop)."""

    name: str


class Lowering:
    """The state of one program's lowering, private to this class. ``run`` lowers the graph;
    the lowering of a node kind kept in its own module (``mutations.py``) works through the
    methods under "for node lowerings": it resolves arguments, makes temporaries, asks about
    tensors and the graph's order, emits calls and binds the node's value."""

    def __init__(self, program: ExportedProgram) -> None:
        self._program = program
        self._tensors: list[TensorSpec] = []
        self._calls: list[Call] = []
        self._env: dict[torch.fx.Node, Any] = {}
        self._inputs: list[int] = []
        self._outputs: list[Arg] = []
        self._buffers: dict[str, int] = {}  # mutated buffer name -> its tensor
        self._write_backs: list[tuple[str, torch.fx.Node, Any]] = []
        signature = program.graph_signature
        self._input_specs: dict[str, InputSpec] = {s.arg.name: s for s in signature.input_specs}
        self._mutated = set(signature.buffers_to_mutate.values())
        self._order = {n: i for i, n in enumerate(program.graph.nodes)}
        self._ranges = program.range_constraints
        self._slots = 0  # SymIntArgs made so far

    def run(self) -> LoweredProgram:
        for node in self._program.graph.nodes:
            if node.op == "placeholder":
                self._placeholder(node)
            elif node.op == "call_function":
                self._call_function(node)
            elif node.op == "output":
                self._output(node)
            elif node.op == "get_attr":
                # A nested graph of a control-flow operator, refused where that operator is called.
                self._env[node] = _NestedGraph(str(node.target))
            else:
                kind = with_article(node.op)
                raise ExportError(f"node '{node.name}' is {kind} node, which programs cannot hold")
        self._write_back()
        call_spec = self._program.call_spec
        return LoweredProgram(
            tuple(self._tensors),
            tuple(self._calls),
            tuple(self._inputs),
            tuple(self._outputs),
            _spec_string(call_spec.in_spec),
            _spec_string(call_spec.out_spec),
        )

    # ---- for node lowerings ----

    def role(self, tensor: int) -> Role:
        return self._tensors[tensor].role

    def read_after(self, node: torch.fx.Node, value: torch.fx.Node) -> bool:
        """Whether a node after ``node`` in the graph reads ``value``."""
        position = self._order[node]
        return any(self._order[user] > position for user in value.users)

    def emit(self, call: Call) -> None:
        """Appends a call to the program, after those emitted so far."""
        self._calls.append(call)

    def bind(self, node: torch.fx.Node, value: Any) -> None:
        """What later nodes read as ``node``'s value (a TensorRef, or a tuple of them)."""
        self._env[node] = value

    # ---- tensors ----

    def _add_tensor(self, spec: TensorSpec) -> int:
        self._tensors.append(spec)
        return len(self._tensors) - 1

    def _check_dtype(self, node: torch.fx.Node, dtype: torch.dtype) -> None:
        try:
            scalar_type_code(dtype)
        except ArgumentError as error:
            raise ExportError(f"node '{node.name}'{where(node)}: {error}") from None

    def temp(self, node: torch.fx.Node, value: Any, name: str) -> TensorRef:
        if not isinstance(value, torch.Tensor):
            problem = (
                f"it produces {with_article(type(value).__name__)} ({value!r}); programs pass "
                "only tensors between calls"
            )
            raise node_error(node, str(node.target), problem)
        self._check_dtype(node, value.dtype)
        sizes, dynamic = bounds(node, value, self._ranges, "node")
        spec = TensorSpec(
            name, value.dtype, sizes, Role.TEMP, None, bool(value.requires_grad), dynamic=dynamic
        )
        return TensorRef(self._add_tensor(spec))

    def _constant(self, name: str, value: torch.Tensor, node: torch.fx.Node) -> int:
        self._check_dtype(node, value.dtype)
        sizes = tuple(int(s) for s in value.shape)
        data = tensor_bytes(value)
        spec = TensorSpec(name, value.dtype, sizes, Role.CONSTANT, data, bool(value.requires_grad))
        return self._add_tensor(spec)

    def resolve(self, value: Any) -> Any:
        """Graph nodes in ``value`` -> tensor references (storing the constants used)."""
        if isinstance(value, torch.fx.Node):
            found = self._env[value]
            if isinstance(found, LazyConstant):
                if found.tensor is None:
                    found.tensor = self._constant(found.name, found.value, value)
                return TensorRef(found.tensor)
            if isinstance(found, tuple):
                return tuple(self._resolve_item(item, value) for item in found)
            return found
        if isinstance(value, list | tuple):
            return type(value)(self.resolve(v) for v in value)
        return value

    def _resolve_item(self, item: Any, node: torch.fx.Node) -> Any:
        if isinstance(item, LazyConstant):
            if item.tensor is None:
                item.tensor = self._constant(item.name, item.value, node)
            return TensorRef(item.tensor)
        return item

    def _state(self, target: str) -> Any:
        """A parameter, buffer or constant of the program by name."""
        if target in self._program.state_dict:
            return self._program.state_dict[target]
        return self._program.constants[target]

    # ---- graph nodes ----

    def _placeholder(self, node: torch.fx.Node) -> None:
        spec = self._input_specs[node.name]
        target = spec.target or node.name
        if spec.kind == InputKind.USER_INPUT:
            value = node.meta.get("val")
            if not isinstance(value, torch.Tensor):
                raise ExportError(
                    f"input '{node.name}' is {with_article(type(value).__name__)}; Kiln programs "
                    "take tensor inputs only (pass numbers as tensors, or fix them in the module)"
                )
            sizes, dynamic = bounds(node, value, self._ranges, "input")
            self._check_dtype(node, value.dtype)
            tensor = self._add_tensor(
                TensorSpec(node.name, value.dtype, sizes, Role.INPUT, dynamic=dynamic)
            )
            self._inputs.append(tensor)
            self._env[node] = TensorRef(tensor)
        elif spec.kind == InputKind.BUFFER and target in self._mutated:
            initial = self._state(target)
            self._check_dtype(node, initial.dtype)
            sizes = tuple(int(s) for s in initial.shape)
            buffer = TensorSpec(target, initial.dtype, sizes, Role.BUFFER, tensor_bytes(initial))
            self._buffers[target] = self._add_tensor(buffer)
            self._env[node] = TensorRef(self._buffers[target])
        elif spec.kind in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            value = self._state(target)
            if not isinstance(value, torch.Tensor):
                raise ExportError(
                    f"'{target}' is {with_article(type(value).__name__)}, not a tensor"
                )
            self._env[node] = LazyConstant(target, value)
        else:
            raise ExportError(
                f"input '{node.name}' is {with_article(spec.kind.name.lower())} input, which "
                "programs cannot hold (only tensors, parameters, buffers and tensor constants)"
            )

    def _call_function(self, node: torch.fx.Node) -> None:
        target = node.target
        if target is operator.getitem:
            source, index = node.args
            found = self._env[source] if isinstance(source, torch.fx.Node) else None
            if not isinstance(found, tuple) or not isinstance(index, int):
                raise node_error(node, "getitem", "it indexes a value that is not a tensor list")
            self._env[node] = found[index]
            return
        if isinstance(target, torch._ops.HigherOrderOperator) and target.__name__ in WRAPPERS:
            lower_auto_functionalized(self, node)
            return
        if isinstance(target, torch._ops.HigherOrderOperator):
            raise node_error(
                node,
                f"torch.ops.higher_order.{target.__name__}",
                "programs have no control flow; keep data-dependent branches and loops out of "
                "forward, or unroll them",
            )
        if not isinstance(target, torch._ops.OpOverload):
            name = getattr(target, "__name__", str(target))
            if isinstance(node.meta.get("val"), SYMBOLIC) and target in PRIM_OPERATORS:
                operands = tuple(number_arg(node, self.resolve(a)) for a in node.args)
                self._emit_symbolic(node, PRIM_OPERATORS[target], operands)
                return
            problem = "it is not an ATen operator"
            if isinstance(node.meta.get("val"), SYMBOLIC):
                problem = _SYMBOLIC_PROBLEM
            raise node_error(node, name, problem)
        if target.namespace == "aten" and functional_name(target).split(".")[0] in _ASSERTIONS:
            return
        self._lower_op(node, target)

    def _fold(self, node: torch.fx.Node, target: torch._ops.OpOverload) -> bool:
        """A call on constants only becomes a constant, when ``constants.fold`` agrees."""
        inputs: dict[torch.fx.Node, LazyConstant] = {}
        for source in node.all_input_nodes:
            found = self._env.get(source)
            if not isinstance(found, LazyConstant):
                return False
            inputs[source] = found
        same_bytes = target.namespace == "aten" and functional_name(target) in _SAME_BYTES
        computed = fold(node, target, inputs, same_bytes)
        if computed is None:
            return False
        if isinstance(computed, list | tuple):
            self._env[node] = tuple(
                LazyConstant(f"{node.name}[{i}]", c) for i, c in enumerate(computed)
            )
        else:
            self._env[node] = LazyConstant(node.name, computed)
        return True

    def _alias(self, node: torch.fx.Node, target: torch._ops.OpOverload) -> bool:
        """A same-bytes view or copy of a computed tensor or input shares its memory."""
        if target.namespace != "aten" or functional_name(target) not in _SAME_BYTES:
            return False
        source = self.resolve(node.args[0])
        value = node.meta.get("val")
        if not isinstance(source, TensorRef) or not isinstance(value, torch.Tensor):
            return False
        base = self._tensors[source.tensor]
        if base.role not in (Role.TEMP, Role.INPUT) or value.dtype != base.dtype:
            return False  # a buffer changes at the write-back; its views must be copies
        if has_symbolic_layout(value) or value.nbytes != base.nbytes:
            return False  # a view whose layout varies is copied, by a call that takes it
        sizes = tuple(int(s) for s in value.shape)
        root = source.tensor if base.alias_of is None else base.alias_of
        spec = TensorSpec(node.name, base.dtype, sizes, Role.TEMP, alias_of=root)
        self._env[node] = TensorRef(self._add_tensor(spec))
        return True

    def _choose_operator(
        self, node: torch.fx.Node, op: torch._ops.OpOverload, bound: dict[str, Any]
    ) -> tuple[torch._ops.OpOverload, dict[str, Any]]:
        """A Scalar overload for numbers given as tensors, else those numbers as 0-dim constants."""
        numbers = numbers_for_tensors(op, bound)
        if not numbers:
            return op, bound
        sibling = scalar_sibling(op, numbers)
        if sibling is not None:
            name = out_variant(sibling)
            if name is not None and unavailable_reason(name) is None:
                return sibling, bound
        floating = [
            v.meta["val"].dtype
            for v in bound.values()
            if isinstance(v, torch.fx.Node)
            and isinstance(v.meta.get("val"), torch.Tensor)
            and v.meta["val"].dtype.is_floating_point
        ]
        symbolic = sorted(n for n in numbers if isinstance(bound[n], torch.fx.Node))
        if symbolic:
            problem = (
                f"argument '{symbolic[0]}' is a size computed at run time, and the operator has "
                "no Scalar overload with a kernel to take it"
            )
            raise node_error(node, op_name(op), problem)
        lifted = dict(bound)
        for name in sorted(numbers):
            value = number_tensor(bound[name], floating)
            lifted[name] = TensorRef(self._constant(f"{node.name}.{name}", value, node))
        return op, lifted

    def _emit_symbolic(
        self, node: torch.fx.Node, operator_name: str, args: tuple[Arg, ...]
    ) -> None:
        """A prim operator call whose result, an Int computed at run time, is the node's value."""
        result = SymIntArg(self._slots)
        self._slots += 1
        self._calls.append(Call(operator_name, args, result, node.name))
        self._env[node] = result

    def _lower_size_operator(self, node: torch.fx.Node, target: torch._ops.OpOverload) -> None:
        """aten.sym_size.int(x, dim), sym_numel(x), _local_scalar_dense(x): a tensor's metadata
        or its one element, as a prim operator."""
        operator_name = ATEN_SIZE_OPERATORS.get(functional_name(target))
        source = self.resolve(node.args[0]) if node.args else None
        if target.namespace != "aten" or operator_name is None or not isinstance(source, TensorRef):
            raise node_error(node, op_name(target), _SYMBOLIC_PROBLEM)
        args: tuple[Arg, ...] = (TensorArg(source.tensor),)
        if len(node.args) > 1:
            args += (number_arg(node, node.args[1]),)
        self._emit_symbolic(node, operator_name, args)

    def _lower_op(self, node: torch.fx.Node, target: torch._ops.OpOverload) -> None:
        what = op_name(target)
        value = node.meta.get("val")
        if isinstance(value, SYMBOLIC):
            self._lower_size_operator(node, target)
            return
        if self._fold(node, target) or self._alias(node, target):
            return
        op, bound = self._choose_operator(node, target, bind(node, target))
        out_name = out_variant(op)
        if out_name is None:
            problem = (
                "it has no out variant, and programs call out-variant kernels only; rewrite the "
                "model without it"
            )
            if op.namespace != "aten":
                problem = (
                    "kiln.export lowers ATen operators and Kiln's own custom operators only "
                    "(custom_ops.yaml), not other custom operators"
                )
            raise node_error(node, what, problem)
        reason = unavailable_reason(out_name)
        if reason is not None:
            raise node_error(node, what, f"its out variant {out_name} cannot be used: {reason}")
        values = value if isinstance(value, list | tuple) else (value,)
        outs = tuple(self.temp(node, v, f"{node.name}[{i}]") for i, v in enumerate(values))
        args, result = out_arguments(node, op, resolve(out_name), bound, outs, self.resolve)
        self._calls.append(Call(out_name, args, result, node.name))
        self._env[node] = outs if isinstance(value, list | tuple) else outs[0]

    def _output(self, node: torch.fx.Node) -> None:
        results = node.args[0]
        assert isinstance(results, list | tuple)
        specs = self._program.graph_signature.output_specs
        for spec, value in zip(specs, results, strict=True):
            if spec.kind == OutputKind.USER_OUTPUT:
                self._outputs.append(self._output_arg(node, value))
            elif spec.kind == OutputKind.BUFFER_MUTATION and spec.target is not None:
                self._write_backs.append((spec.target, node, value))
            elif spec.kind == OutputKind.USER_INPUT_MUTATION:
                raise ExportError(
                    f"forward mutates its input '{spec.target}' in place; Kiln programs cannot "
                    "write to their inputs: return the new value instead, or keep the state (a "
                    "KV cache) in a module buffer"
                )
            else:
                raise ExportError(
                    f"output '{spec.arg.name}' is {with_article(spec.kind.name.lower())} "
                    "output, which programs cannot produce"
                )

    def _output_arg(self, node: torch.fx.Node, value: Any) -> Arg:
        if value is None:
            return NoneArg()
        if isinstance(value, bool):
            return BoolArg(value)
        if isinstance(value, int):
            return IntArg(value)
        if isinstance(value, float):
            return DoubleArg(value)
        resolved = self.resolve(value)
        if isinstance(resolved, TensorRef):
            return TensorArg(resolved.tensor)
        raise ExportError(
            f"output {value!r} of '{node.name}' is {with_article(type(value).__name__)}; "
            "programs return tensors, numbers and None"
        )

    def _write_back(self) -> None:
        """Mutated buffers take their new values at the end of each run, in place."""
        for target, node, value in self._write_backs:
            source = self.resolve(value)
            buffer = self._buffers[target]
            if not isinstance(source, TensorRef):
                raise ExportError(f"buffer '{target}' is assigned a non-tensor value")
            if source.tensor == buffer:
                continue
            reason = unavailable_reason(WRITE_BACK_OP)
            if reason is not None:
                problem = f"the buffer write-back cannot be used: {reason}"
                raise node_error(node, WRITE_BACK_OP, problem)
            args = (TensorArg(buffer), TensorArg(source.tensor), BoolArg(False))
            self._calls.append(Call(WRITE_BACK_OP, args, TensorArg(buffer), f"{target}.copy_"))


def lower(program: ExportedProgram) -> LoweredProgram:
    """Lowers a torch.export program already decomposed to core ATen (``run_decompositions``)."""
    return Lowering(program).run()


def _spec_string(spec: pytree.TreeSpec | None) -> str:
    return "" if spec is None else pytree.treespec_dumps(spec)
