"""kiln.load: run a .pte program (ExecuTorch's format) on Kiln's kernels, from torch tensors."""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import torch

from kiln import _C
from kiln._convert import DTYPE_CODES
from kiln._errors import KilnError
from kiln.codegen.wording import with_article

_DTYPES = {code: dtype for dtype, code in DTYPE_CODES.items()}

# kiln.load's default bound on a program's planned memory (see load()); kiln_runner's
# --max-memory defaults to the same.
DEFAULT_MAX_MEMORY = 1 << 30


@dataclass(frozen=True)
class MissingOperator:
    """An operator the program calls that the chosen backends cannot run."""

    index: int  # in the program's operator table, as in the "Missing operator: [i]" log lines
    op: str
    key: str  # the kernel key (dtypes) asked for, "" when no kernel of any key exists
    cause: str


@dataclass(frozen=True)
class Instruction:
    """One instruction of the loaded method, as the native Method holds it."""

    index: int
    kind: str  # "KernelCall", "MoveCall", ...
    op: str  # "aten::add.out" for kernel calls, "" otherwise
    # the backend whose kernel ran it last, "" before the first run ("folded": run at load;
    # "fused": an activation the call before it applied)
    backend: str
    activation: str = ""  # the activation fused into this call ("aten::relu.out"), if any


@dataclass(frozen=True)
class ProfileRow:
    """One instruction of a profiled run."""

    index: int
    kind: str  # "KernelCall", "MoveCall", ...
    op: str  # "aten::add.out" for kernel calls
    backend: str  # the backend whose kernel ran it
    ns: int
    activation: str = ""  # the activation fused into this call, if any


@dataclass(frozen=True)
class FoldReport:
    """What constant folding did when the program loaded (all 0 when it was off)."""

    instructions: int  # kernel calls run once at load and skipped by every run
    # their results and batch-norm fusion's weights, kept beside the planned memory (counted in
    # max_memory)
    bytes: int
    peak_bytes: int  # the most folding held at once during load
    over_limit: int  # foldable calls left to run at each run: max_memory had no room for them
    fused_activations: int = 0  # activations fused into the calls before them (fuse=True)
    fused_batch_norms: int = 0  # batch norms folded into the convolutions before them
    # dequantize -> convolution / linear -> quantize chains run as one int8 call
    fused_int8: int = 0


class Profile(tuple[ProfileRow, ...]):
    """Per-instruction times of one run; str() is a table, slowest operators summed at the end."""

    def __str__(self) -> str:
        lines = [f"{'#':>4}  {'operator':<48} {'backend':<9} {'time':>12}"]
        for row in self:
            name = row.op or row.kind
            if row.activation:
                name = f"{name} + {row.activation}"
            lines.append(f"{row.index:>4}  {name:<48} {row.backend:<9} {_ns(row.ns):>12}")
        lines.append(f"{'':>4}  {'total':<48} {'':<9} {_ns(sum(r.ns for r in self)):>12}")
        return "\n".join(lines)


def _ns(ns: int) -> str:
    return f"{ns / 1000:.1f} us" if ns >= 1000 else f"{ns} ns"


class Program:
    """A loaded method of a .pte program. Create it with :func:`kiln.load`."""

    def __init__(
        self,
        source: str | bytes,
        method: str,
        backends: tuple[str, ...],
        max_memory: int | None = DEFAULT_MAX_MEMORY,
        fold_constants: bool = True,
        fuse: bool = True,
        data: str | bytes | None = None,
    ) -> None:
        """Loads `method` of the program at the path `source` (mapped, not read), or in the
        bytes `source`, its planned memory bounded by `max_memory` bytes (None: unbounded), with
        its calls on constants folded at load unless `fold_constants` is False, and activations
        fused into the calls before them unless `fuse` is False; `data` is its data file (.ptd),
        a path (mapped) or bytes. The native loader raises KilnError with the runtime's code."""
        if max_memory is not None and (isinstance(max_memory, bool) or max_memory < 0):
            raise ValueError(f"max_memory must be a byte count >= 0 or None, got {max_memory!r}")
        self.path = "<bytes>" if isinstance(source, bytes) else source
        self.data_path = "<bytes>" if isinstance(data, bytes) else data
        self.method = method
        self.backends = backends
        # An extension built before constant folding takes no fold_constants (and folds nothing).
        options: dict[str, Any] = (
            {"fold_constants": fold_constants} if hasattr(_C.Program, "folded") else {}
        )
        if options and "fuse" in (_C.Program.from_bytes.__doc__ or ""):
            options["fuse"] = fuse
        if isinstance(data, bytes):
            options["data_bytes"] = data
        elif data is not None:
            options["data_path"] = data
        try:
            if isinstance(source, bytes):
                self._native = _C.Program.from_bytes(
                    source, method, list(backends), max_memory, **options
                )
            else:
                self._native = _C.Program.from_file(
                    source, method, list(backends), max_memory, **options
                )
        except ValueError as error:  # an unknown backend name
            raise KilnError(str(error), "InvalidArgument") from None
        code, message = self._native.load_status()
        if code != "Ok":
            missing = self.missing_operators()
            lines = "".join(
                f"\n  Missing operator: [{m.index}] {m.op}"
                + (f" (kernel key {m.key})" if m.key else "")
                + f": {m.cause}"
                for m in missing
            )
            raise ProgramLoadError(message + lines, code, missing)
        if data is not None and self.external_tensors == 0:
            warnings.warn(
                f"{self.path} keeps all its data inside: the data file {self.data_path} is not "
                "used (was the program exported without external constants?)",
                stacklevel=3,
            )
        # The operator table, from the loaded Method: "Missing operator: [i]" indexes it.
        self.operators: tuple[str, ...] = tuple(self._native.operators())
        self._profile: Profile | None = None

    @property
    def folded(self) -> FoldReport:
        """What constant folding and fusion did at load: the calls on constants it ran once, the
        bytes their results keep, and the activations fused (see docs/programs.md, "Constant
        folding at load" and "Fusion at load")."""
        report = getattr(self._native, "folded", None)
        return FoldReport(*report()) if report is not None else FoldReport(0, 0, 0, 0)

    @property
    def external_tensors(self) -> int:
        """How many of the program's tensors read their bytes from its data file (``data``)."""
        return int(self._native.num_external_tensors())

    def instructions(self) -> tuple[Instruction, ...]:
        """The method's instructions: kind, operator and the backend that ran each last
        ("folded" for a call run once at load, which the runs skip; "fused" for an activation
        the call before it applies, with that call's ``activation`` naming it)."""
        return tuple(Instruction(*row) for row in self._native.instructions())

    def missing_operators(self) -> list[MissingOperator]:
        """The operators the chosen backends lack ([] once the program has loaded)."""
        return [MissingOperator(*entry) for entry in self._native.missing_operators()]

    def run(
        self, *inputs: Any, profile: bool = False, max_instructions: int | None = None
    ) -> tuple[Any, ...]:
        """Runs the method on torch tensors (and Python scalars for scalar inputs); returns its
        outputs as new torch tensors. With ``profile=True`` the per-instruction times are kept
        for :meth:`last_profile`.

        The run executes at most `max_instructions` instructions (None: the runtime's default,
        a million per instruction of the method, which only a program that jumps back can
        reach); a run over its budget, or stopped by :meth:`cancel`, raises KilnError with code
        InvalidState and a message naming the method and the instruction."""
        if max_instructions is not None and (
            isinstance(max_instructions, bool) or max_instructions < 1
        ):
            raise ValueError(
                f"max_instructions must be an instruction count >= 1 or None, "
                f"got {max_instructions!r}"
            )
        native = self._native
        with self._one_run():
            bound = self._bind(inputs)
            native.execute(profile, max_instructions or 0)
            outputs = tuple(self._output(i) for i in range(native.num_outputs()))
            del bound  # the inputs' memory was in use until here
            if profile:
                self._profile = Profile(ProfileRow(*row) for row in native.last_profile())
        return outputs

    def cancel(self) -> None:
        """Stops the run in progress on this Program, from any thread: the run ends before its
        next instruction and raises KilnError with code InvalidState. A cancel() while no run is
        in progress does nothing (the next run is not affected); each run starts uncancelled.
        A run waiting for its turn (see :func:`load`) is not yet in progress.

        Ctrl-C cannot stop a run: the run executes without the GIL, where Python's signal
        handlers do not run. Bound a long run with ``max_instructions``, or cancel it from
        another thread."""
        self._native.cancel()

    @contextmanager
    def _one_run(self) -> Iterator[None]:
        """Holds the native Program's run lock: the method's input bindings and memory serve one
        run at a time, so runs from several threads on one Program take turns."""
        self._native.acquire()
        try:
            yield
        finally:
            self._native.release()

    def _bind(self, inputs: tuple[Any, ...]) -> list[torch.Tensor]:
        """Binds the inputs; returns the tensors whose memory the method now uses."""
        native = self._native
        count = native.num_inputs()
        if len(inputs) != count:
            raise KilnError(
                f"{self.method} takes {count} inputs, got {len(inputs)}", "InvalidArgument"
            )
        bound = []
        for index, value in enumerate(inputs):
            if isinstance(value, torch.Tensor):
                tensor = _bindable(index, value, native.input_meta(index))
                bound.append(tensor)
                native.set_tensor_input(
                    index,
                    tensor.data_ptr(),
                    list(tensor.shape),
                    DTYPE_CODES[tensor.dtype],
                    _dim_order(tensor),
                )
            else:
                native.set_scalar_input(index, value)
        return bound

    def time_execute(self, *inputs: Any, repeat: int = 100) -> float:
        """Mean nanoseconds of one run on `inputs`, timed natively over `repeat` runs (no Python
        per run): what a C++ caller of the same program pays."""
        with self._one_run():
            bound = self._bind(inputs)
            self._native.execute(False)  # warm up
            ns = float(self._native.time_execute(repeat))
            del bound
        return ns

    def last_profile(self) -> Profile:
        """The per-instruction profile of the last ``run(..., profile=True)``."""
        if self._profile is None:
            raise KilnError("no profiled run yet: call run(..., profile=True)", "InvalidState")
        return self._profile

    def _output(self, index: int) -> Any:
        kind, dtype, sizes, dim_order = self._native.output_meta(index)
        if kind != "Tensor":
            return dtype  # the scalar itself
        torch_dtype = _DTYPES[dtype]
        physical = [sizes[d] for d in dim_order]
        flat = torch.empty(physical, dtype=torch_dtype)
        self._native.copy_output(index, flat.data_ptr(), flat.numel() * flat.element_size())
        # Back to logical dimension order: a permuted view of the physical layout.
        inverse = [dim_order.index(d) for d in range(len(dim_order))]
        return flat.permute(inverse) if dim_order != sorted(dim_order) else flat


class ProgramLoadError(KilnError):
    """kiln.load failed; ``missing`` lists the operators the backends lack, if that is why."""

    def __init__(self, message: str, code: str, missing: list[MissingOperator]) -> None:
        super().__init__(message, code)
        self.missing = missing


def _dim_order(tensor: torch.Tensor) -> list[int]:
    strides = tensor.stride()
    return sorted(range(tensor.dim()), key=lambda d: (-strides[d], d))


def _refused_kind(tensor: torch.Tensor) -> str:
    """Why the tensor cannot be bound ("" if it can): a meta tensor has no data, a sparse or
    quantized one is not the dense layout the program reads, and the kernels read CPU memory."""
    if tensor.is_meta:
        return "a meta tensor has no data"
    if tensor.layout != torch.strided:
        return f"a {tensor.layout} tensor is not dense"
    if tensor.is_quantized:
        return "a quantized tensor is not supported"
    if tensor.device.type != "cpu":
        return f"the tensor is on {tensor.device}"
    return ""


def _bindable(index: int, tensor: torch.Tensor, meta: tuple[Any, ...]) -> torch.Tensor:
    """The tensor in the program's dtype-free layout: dense in its dim order (the binding then
    uses its memory in place)."""
    kind, _, sizes, dim_order, dynamic = meta
    refused = _refused_kind(tensor)
    if refused:
        raise KilnError(
            f"input {index}: {refused}; Program.run takes dense CPU tensors", "InvalidArgument"
        )
    if kind != "Tensor":
        raise KilnError(
            f"input {index}: the program takes {with_article(kind)}, got a tensor",
            "InvalidArgument",
        )
    if tensor.dtype not in DTYPE_CODES:
        raise KilnError(f"input {index}: dtype {tensor.dtype} is not supported", "InvalidArgument")
    # Before any copy: an expanded view of billions of elements must not be made contiguous only
    # for Method::set_input to refuse its shape (which it checks for the rest). `sizes` are the
    # largest the input takes: a dynamic input may have any shape of at most their elements, as
    # in ExecuTorch.
    if tensor.numel() > math.prod(sizes) and not dynamic:
        raise KilnError(
            f"input {index}: its shape differs from the program's: expected {list(sizes)}, got "
            f"{list(tensor.shape)}; the program has static shapes (export it with "
            "torch.export.Dim for the dimensions that vary)",
            "InvalidArgument",
        )
    if tensor.numel() > math.prod(sizes):
        beyond = [
            f"dimension {d} is {size}, beyond {bound}"
            for d, (size, bound) in enumerate(zip(tensor.shape, sizes, strict=False))
            if size > bound
        ]
        raise KilnError(
            f"input {index}: {list(tensor.shape)} holds {tensor.numel()} elements, more than "
            f"the {math.prod(sizes)} of the program's {list(sizes)}"
            + (f" ({beyond[0]})" if beyond else ""),
            "InvalidArgument",
        )
    if tensor.dim() == len(dim_order) and dim_order != sorted(dim_order):
        # A channels-last style input: make the strides match the program's dim order.
        physical = tensor.permute(dim_order).contiguous()
        inverse = [dim_order.index(d) for d in range(len(dim_order))]
        return physical.permute(inverse)
    return tensor.detach().contiguous()


def load(
    path: str | os.PathLike[str] | bytes,
    method: str = "forward",
    backends: tuple[str, ...] | list[str] = ("portable",),
    max_memory: int | None = DEFAULT_MAX_MEMORY,
    fold_constants: bool = True,
    fuse: bool = True,
    data: str | os.PathLike[str] | bytes | None = None,
) -> Program:
    """Loads `method` of a .pte program (a path, whose file is mapped, or the file's bytes),
    resolving its operators on `backends` in preference order. The program's planned memory
    (its arenas and metadata together) may take at most `max_memory` bytes, 1 GiB by default:
    the sizes come from the file, so a small hostile file could otherwise allocate gigabytes;
    pass a larger bound, or None, for a trusted program that plans more. Raises KilnError with
    the runtime's code: AccessFailed for a file it cannot read (a named pipe, a directory),
    InvalidProgram for a bad program, MemoryAllocationFailed for a plan over `max_memory`, and
    ProgramLoadError naming the missing operators (also in ``.missing``).

    With `fold_constants` (the default) the kernel calls whose inputs are all constants of the
    program (the transposes and copies of weights an exporter leaves) run once, at load, and
    every run skips them: the results are the same bytes a run computes, kept beside the planned
    memory within `max_memory`; calls that do not fit run at each run instead
    (:attr:`Program.folded` reports both). Pass False to run every instruction at each run.

    With `fuse` (the default) an activation (relu, hardtanh/relu6, clamp with constant bounds)
    that alone reads the result of the call before it is fused into that call: the call writes
    the activation's out, and convolution, linear, addmm and mm clamp their float results as
    they store them, so the runs skip the activation (``backend == "fused"`` in
    :meth:`Program.instructions`). Results are bit for bit the unfused ones. Pass False to keep
    every activation.

    `data` is the program's data file (.ptd), for a program exported with external constants
    (``ExecutorchBackendConfig(external_constants=True)``, or ``kiln.export(...,
    data_path=...)``): a path, whose file is mapped and whose tensors the program reads in
    place, or the file's bytes (copied). Each external tensor is found by its name and checked
    against its entry. Raises KilnError: InvalidArgument when the program has external tensors
    and no `data` is given, NotFound when the data file lacks one of them, InvalidProgram for a
    data file that is corrupted, truncated or from another export. A data file given to a
    program with no external tensors is not used, with a UserWarning.

    A Program may be run from several threads: its runs take turns (one lock per Program), so
    threads that want to run in parallel load one Program each."""
    source = path if isinstance(path, bytes) else os.fspath(path)
    data_source = data if data is None or isinstance(data, bytes) else os.fspath(data)
    return Program(source, method, tuple(backends), max_memory, fold_constants, fuse, data_source)
