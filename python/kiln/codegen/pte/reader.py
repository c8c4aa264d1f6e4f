"""What a .pte program needs from an operator library: the operators of each execution plan and
the kernel key of each KernelCall, read through the flatc object API and checked on the way.

A KernelCall's ``args`` are the operator's arguments in schema order, then its returned values
(ExecuTorch's emitter appends an out variant's out tensor once more, several outs as one
TensorList, an in-place op's ``self``). Its kernel key is Kiln's: one ``<dtype>;<dim order>``
entry per tensor among the arguments, returns excluded, as ``kiln.codegen.model.kernel_keys``
and the runtime's ``build_kernel_key`` write it. ATen schemas give the argument count; for other
operators, whose schemas a program does not carry, the one trailing value that repeats arguments
(the out tensors, or ``self``) is the return.

A DelegateCall runs operators too: for each call to ``XnnpackBackend`` the payload's XNNPACK graph
is read and the operators Kiln's own delegate calls for it are added, with their keys
(``xnnpack_ops``). A call to another backend is recorded, for selection to warn about and
diagnostics to report: what it runs is that backend's business.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from kiln.codegen.errors import UserError
from kiln.codegen.model.kernel_keys import KernelKey, KeyArg
from kiln.codegen.model.schemas import AtenSchemas
from kiln.codegen.pte import program_generated
from kiln.codegen.pte.delegates import DelegatePayload, delegate_payloads
from kiln.codegen.pte.header import PteFile, read_pte_file, split_pte
from kiln.codegen.pte.xnnpack_ops import GraphError, xnnpack_calls
from kiln.codegen.pte.xnnpack_payload import PayloadError, read_xnnpack_graph

fb: Any = program_generated  # flatc's Python output carries no type hints

_CORRUPT = "the file is damaged or cut short; copy it again, or export the program again"
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
XNNPACK_BACKEND = "XnnpackBackend"  # the delegate Kiln runs itself (runtime/executor/delegate.cpp)


@dataclass(frozen=True)
class OperatorCall:
    """One KernelCall: the operator's qualified name and the kernel key its arguments need."""

    op: str
    key: KernelKey


@dataclass(frozen=True)
class DelegateUse:
    """One DelegateCall: its backend, where it is, and the operator calls Kiln's delegate for that
    backend makes (none when Kiln does not run the backend itself: ``runs_in_kiln`` False)."""

    backend: str
    where: str
    calls: tuple[OperatorCall, ...]

    @property
    def runs_in_kiln(self) -> bool:
        return self.backend == XNNPACK_BACKEND


@dataclass(frozen=True)
class PlanOperators:
    """One execution plan (method): its operator table, in order, its kernel calls and its
    delegate calls."""

    name: str
    operators: tuple[str, ...]
    calls: tuple[OperatorCall, ...]
    delegates: tuple[DelegateUse, ...] = ()


@dataclass(frozen=True)
class PteOperators:
    """The operators and kernel keys of every execution plan of one .pte file."""

    path: str
    plans: tuple[PlanOperators, ...]

    def operators(self) -> list[str]:
        """Every plan's operator table, merged and sorted."""
        return sorted({op for plan in self.plans for op in plan.operators})

    def delegates(self) -> list[DelegateUse]:
        """Every plan's delegate calls, in order."""
        return [use for plan in self.plans for use in plan.delegates]

    def keys(self) -> dict[str, set[KernelKey]]:
        """Operator -> the kernel keys its calls need (an operator no call uses: no keys), the
        calls Kiln's delegates make included. The default key stands for every dtype."""
        found: dict[str, set[KernelKey]] = {op: set() for op in self.operators()}
        for plan in self.plans:
            for call in plan.calls:
                found[call.op].add(call.key)
        for use in self.delegates():
            for call in use.calls:
                found.setdefault(call.op, set()).add(call.key)
        return found

    def delegated(self) -> dict[str, str]:
        """Operator -> the first delegate call (backend and where) whose delegate calls it."""
        found: dict[str, str] = {}
        for use in self.delegates():
            for call in use.calls:
                found.setdefault(call.op, f"{use.backend} delegate at {use.where}")
        return found


@dataclass
class _ArgumentCounts:
    """Argument counts of ATen operators, from native_functions.yaml; None for other ops."""

    schemas: AtenSchemas = field(default_factory=AtenSchemas)
    cache: dict[str, int | None] = field(default_factory=dict)

    def of(self, op: str) -> int | None:
        if op not in self.cache:
            self.cache[op] = self._count(op)
        return self.cache[op]

    def _count(self, op: str) -> int | None:
        namespace, _, bare = op.partition("::")
        if namespace != "aten":
            return None
        text = self.schemas.index.lookup(bare)
        if text is None:
            return None
        from torchgen.model import FunctionSchema

        return len(FunctionSchema.parse(text).arguments.flat_all)


def _text(path: str, raw: Any, what: str) -> str:
    if raw is None:
        return ""
    try:
        return bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise UserError(path, None, f"{what} is not UTF-8 text", _CORRUPT) from None


def _qualified_name(path: str, plan: str, index: int, operator: Any) -> str:
    where = f"plan '{plan}', operator {index}"
    if operator is None:
        raise UserError(path, None, f"{where} is missing", _CORRUPT)
    name = _text(path, operator.name, f"{where}'s name")
    overload = _text(path, operator.overload, f"{where}'s overload")
    namespace, _, base = name.partition("::")
    if not (_NAME.fullmatch(namespace) and _NAME.fullmatch(base)):
        raise UserError(
            path, None, f"{where} is named {name!r}, not '<namespace>::<operator>'", _CORRUPT
        )
    if overload and not _NAME.fullmatch(overload):
        raise UserError(path, None, f"{where} has the overload name {overload!r}", _CORRUPT)
    # An empty overload is the default one (aten::copy_), which selection names without a dot.
    return f"{name}.{overload}" if overload else name


def _kernel_calls(plan: Any) -> Iterator[tuple[str, Any]]:
    """(where, KernelCallT) for every kernel call, in chain and instruction order."""
    for c, chain in enumerate(plan.chains or []):
        instructions = (chain.instructions if chain is not None else None) or []
        for i, instruction in enumerate(instructions):
            if instruction is not None and isinstance(instruction.instrArgs, fb.KernelCallT):
                yield f"chain {c}, instruction {i}", instruction.instrArgs


def _is_return(values: Sequence[Any], args: Sequence[int]) -> bool:
    """Whether the last of ``args`` repeats the ones before it: an out tensor (or ``self``), or
    a TensorList of the out tensors."""
    last, before = args[-1], set(args[:-1])
    if last in before:
        return True
    value = values[last].val
    items = (
        list(value.items) if isinstance(value, fb.TensorListT) and value.items is not None else []
    )
    return bool(items) and all(int(item) in before for item in items)


@dataclass(frozen=True)
class _Plan:
    """One decoded execution plan being read, with what its errors name."""

    path: str
    name: str
    plan: Any  # ExecutionPlanT
    table: tuple[str, ...]  # qualified operator names

    def fail(self, where: str, message: str) -> NoReturn:
        raise UserError(self.path, None, f"plan '{self.name}', {where}: {message}", _CORRUPT)

    def call(self, where: str, call: Any, counts: _ArgumentCounts) -> OperatorCall:
        """The operator and kernel key of one KernelCallT, its indices checked."""
        if not 0 <= call.opIndex < len(self.table):
            self.fail(
                where,
                f"KernelCall op_index {call.opIndex} is out of range (the plan has "
                f"{len(self.table)} operators)",
            )
        op = self.table[call.opIndex]
        values = self.plan.values or []
        args = [int(a) for a in (call.args if call.args is not None else [])]
        for a in args:
            if not 0 <= a < len(values):
                self.fail(
                    where,
                    f"{op} takes value {a}, which is out of range (the plan has {len(values)} "
                    "values)",
                )
        count = counts.of(op)
        if count is None:
            count = len(args) - 1 if args and _is_return(values, args) else len(args)
        elif len(args) < count:
            self.fail(
                where, f"{op} is called with {len(args)} values; its schema takes {count} arguments"
            )
        entries = (self.key_entry(where, a, values[a]) for a in args[:count])
        return OperatorCall(op, KernelKey(tuple(e for e in entries if e is not None)))

    def key_entry(self, where: str, index: int, value: Any) -> KeyArg | None:
        """The key entry of value ``index``, None when it is not a tensor."""
        tensor = value.val if value is not None else None
        if not isinstance(tensor, fb.TensorT):
            return None
        if tensor.dimOrder is None:
            self.fail(where, f"tensor value {index} has no dim_order")
        return KeyArg(int(tensor.scalarType), tuple(int(d) for d in tensor.dimOrder))


def _delegate_use(path: str, payload: DelegatePayload) -> DelegateUse:
    """What one delegate call needs from the operator library."""
    if payload.backend != XNNPACK_BACKEND:
        return DelegateUse(payload.backend, payload.where, ())
    where = f"{payload.where} ({XNNPACK_BACKEND})"
    try:
        calls = xnnpack_calls(read_xnnpack_graph(payload.data))
    except (PayloadError, GraphError) as error:
        raise UserError(
            path, None, f"{where}: {error}", "export the program again with executorch 1.5.x"
        ) from None
    return DelegateUse(payload.backend, payload.where, tuple(OperatorCall(*c) for c in calls))


def _plan(
    pte: PteFile, program: Any, index: int, plan: Any, counts: _ArgumentCounts
) -> PlanOperators:
    path = pte.path
    if plan is None:
        raise UserError(path, None, f"execution plan {index} is missing", _CORRUPT)
    name = _text(path, plan.name, f"execution plan {index}'s name") or str(index)
    table = tuple(
        _qualified_name(path, name, i, operator) for i, operator in enumerate(plan.operators or [])
    )
    reader = _Plan(path, name, plan, table)
    calls = tuple(reader.call(where, call, counts) for where, call in _kernel_calls(plan))
    delegates = tuple(
        _delegate_use(path, payload) for payload in delegate_payloads(pte, program, name, plan)
    )
    return PlanOperators(name, table, calls, delegates)


def _decode(pte: PteFile) -> tuple[Any, list[Any], list[int]]:
    """The program's root table, its execution plans as objects, and the end of each data
    segment that holds data (relative to the segment base; programs without constants list one
    empty segment).

    Only the plans and the segment table are decoded: constant data is not needed to tell which
    operators run, and delegate payloads are read from the root table when a plan calls them.
    FlatBuffers offsets only point forward, so decoding ends; a bad offset or length surfaces as
    one of the exceptions below."""
    try:
        program = fb.Program.GetRootAs(pte.flatbuffer, 0)
        plans = [
            fb.ExecutionPlanT.InitFromObj(program.ExecutionPlan(i))
            for i in range(program.ExecutionPlanLength())
        ]
        segments = [program.Segments(i) for i in range(program.SegmentsLength())]
        ends = [s.Offset() + s.Size() for s in segments if s is not None and s.Size() > 0]
    except Exception as error:  # struct.error, IndexError, ValueError, ... from bad offsets
        kind = type(error).__name__
        if type(error).__module__ != "builtins":
            kind = f"{type(error).__module__}.{kind}"
        raise UserError(
            pte.path,
            None,
            f"malformed or truncated program data ({kind}: {error})",
            _CORRUPT,
        ) from None
    return program, plans, ends


def operator_table(path: str, data: bytes, method: str) -> tuple[str, ...]:
    """The operator table of ``method`` in the .pte program ``data`` (read from ``path``), as
    qualified names, in table order (what "Missing operator: [i]" indexes). Only the table is
    decoded, not the plan's values and instructions."""
    pte = split_pte(path, data)
    try:
        program = fb.Program.GetRootAs(pte.flatbuffer, 0)
        for index in range(program.ExecutionPlanLength()):
            plan = program.ExecutionPlan(index)
            name = _text(path, plan.Name(), f"execution plan {index}'s name")
            if name == method:
                return tuple(
                    _qualified_name(path, name, i, fb.OperatorT.InitFromObj(plan.Operators(i)))
                    for i in range(plan.OperatorsLength())
                )
    except UserError:
        raise
    except Exception as error:  # struct.error, IndexError, ... from bad offsets
        raise UserError(
            path, None, f"malformed or truncated program data ({error})", _CORRUPT
        ) from None
    raise UserError(path, None, f"the program has no method {method!r}", "check the name")


def read_pte_operators(path: str) -> PteOperators:
    """The operators and kernel keys of the .pte program at ``path``, checked: a truncated or
    corrupt file, or an index out of range, is a UserError naming the file and the fault."""
    pte = read_pte_file(path)
    program, plans, segment_ends = _decode(pte)
    pte.check_segments(segment_ends)
    if not plans:
        raise UserError(path, None, "the program has no execution plan (method)", _CORRUPT)
    counts = _ArgumentCounts()
    return PteOperators(path, tuple(_plan(pte, program, i, p, counts) for i, p in enumerate(plans)))
