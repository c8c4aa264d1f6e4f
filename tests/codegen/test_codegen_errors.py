"""Bad inputs: each ends as one `file:line: what — fix` line on stderr, exit 1, no traceback."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from codegen_testing import REPO, run_codegen, run_codegen_process, write

ADD = "- op: add.out\n  kernels:\n    - arg_meta: null\n      kernel_name: k::add_out\n"
KEYED = (
    "- op: add.out\n"
    "  type_alias: {T0: [Float]}\n"
    "  dim_order_alias: {D0: [0, 1]}\n"
    "  kernels:\n"
    "    - arg_meta:\n"
    "        self: [T0, D0]\n"
    "        other: [T0, D0]\n"
    "        out: [T0, D0]\n"
    "      kernel_name: k::add_out\n"
)


@dataclass
class Case:
    id: str
    where: str  # "functions.yaml:3", "custom_ops.yaml:1", "sel.yaml:2", "--root-ops", ...
    says: str  # a fragment of the message
    functions: str | None = None
    custom: str | None = None
    selection: str | None = None
    args: list[str] = field(default_factory=list)


CASES = [
    # ---- YAML shape ----
    Case("yaml-syntax", "functions.yaml:3", "YAML syntax error", "- op: add.out\n  kernels: [\n"),
    Case("not-a-list", "functions.yaml:1", "must be a list", "op: add.out\n"),
    Case("entry-not-mapping", "functions.yaml:1", "must be a mapping", "- add.out\n"),
    Case(
        "duplicate-yaml-key",
        "functions.yaml:3",
        "duplicate key 'op'",
        "- op: add.out\n  kernels: []\n  op: mul.out\n",
    ),
    Case(
        "unknown-entry-key",
        "functions.yaml:2",
        "did you mean 'kernels'",
        "- op: add.out\n  kernals: []\n",
    ),
    Case(
        "unknown-kernel-key",
        "functions.yaml:3",
        "did you mean 'arg_meta'",
        "- op: add.out\n  kernels:\n    - arg_mta: null\n      kernel_name: k::f\n",
    ),
    Case(
        "op-and-func",
        "functions.yaml:1",
        "exactly one of",
        "- op: add.out\n  func: f.out(Tensor a, *, Tensor(a!) out) -> Tensor(a!)\n",
    ),
    Case("neither-op-nor-func", "functions.yaml:1", "exactly one of", "- kernels: []\n"),
    Case(
        "kernels-not-list", "functions.yaml:2", "must be a list", "- op: add.out\n  kernels: k::f\n"
    ),
    # ---- operators and schemas ----
    Case("unknown-op", "functions.yaml:1", "did you mean add.out", "- op: add.ot\n"),
    Case("unknown-op-base", "functions.yaml:1", "unknown ATen operator 'addd'", "- op: addd\n"),
    Case("op-outside-aten", "functions.yaml:1", "outside aten", "- op: foo::bar.out\n"),
    Case(
        "schema-syntax",
        "custom_ops.yaml:1",
        "invalid schema",
        custom="- func: my::f.out(Tensor self *, Tensor(a!) out) -> Tensor(a!)\n",
    ),
    Case(
        "schema-arg-after-out",
        "custom_ops.yaml:1",
        "cannot follow mutable out",
        custom="- func: my::f.out(Tensor self, *, Tensor(a!) out, int x) -> Tensor(a!)\n",
    ),
    Case(
        "reserved-namespace",
        "custom_ops.yaml:1",
        "namespace 'std' is reserved",
        custom="- func: std::f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n",
    ),
    Case(
        "nested-namespace",
        "custom_ops.yaml:1",
        "not a valid operator namespace",
        custom="- func: a::b::f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n",
    ),
    # ---- the contract: declared writes only, no views, tensor returns ----
    Case(
        "aliased-input",
        "custom_ops.yaml:1",
        "aliases input 'self' (a) without writing it",
        custom="- func: my::f.out(Tensor(a) self, *, Tensor(b!) out) -> Tensor(b!)\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "returned-view",
        "custom_ops.yaml:1",
        "aliases input 'self' (a) without writing it",
        custom="- func: my::f(Tensor(a) self) -> Tensor(a)\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "aten-view-op",
        "functions.yaml:1",
        "aliases input 'self' (a) without writing it",
        "- op: view\n  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "returned-alias-of-no-argument",
        "custom_ops.yaml:1",
        "returns 'Tensor(a)', an alias of no argument",
        custom="- func: my::f(Tensor self) -> Tensor(a)\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "returned-alias-of-another-set",
        "custom_ops.yaml:1",
        "returns 'Tensor(b)', an alias of no argument",
        custom="- func: my::f(Tensor(a!) self) -> Tensor(b)\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "returned-alias-mismatched",
        "custom_ops.yaml:1",
        "returns 'Tensor(a)' but its argument 'self' is annotated (a!)",
        custom="- func: my::f(Tensor(a!) self) -> Tensor(a)\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "returned-twice",
        "custom_ops.yaml:1",
        "returns argument 'self' twice",
        custom="- func: my::f(Tensor(a!) self) -> (Tensor(a!), Tensor(a!))\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "shared-alias-set",
        "custom_ops.yaml:1",
        "arguments 'x' and 'y' share the alias set a",
        custom="- func: my::f(Tensor(a!) x, Tensor(a!) y) -> ()\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "out-shares-alias-set",
        "custom_ops.yaml:1",
        "arguments 'self' and 'out' share the alias set a",
        custom="- func: my::f.out(Tensor(a!) self, *, Tensor(a!) out) -> Tensor(a!)\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "several-alias-sets",
        "custom_ops.yaml:1",
        "argument 'self' has the annotation (a|b)",
        custom="- func: my::f(Tensor(a|b) self) -> Tensor\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "wildcard-alias",
        "custom_ops.yaml:1",
        "argument 'self' has the annotation (a -> *)",
        custom="- func: my::f(Tensor(a -> *) self) -> Tensor\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "mutable-optional-tensor",
        "custom_ops.yaml:1",
        "argument 'self' of type Tensor? is written (a!)",
        custom="- func: my::f(Tensor(a!)? self) -> ()\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "mutable-int",
        "custom_ops.yaml:1",
        "argument 'x' of type int is annotated (a!)",
        custom="- func: my::f(Tensor self, int(a!) x) -> ()\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "mutable-scalar",
        "custom_ops.yaml:1",
        "argument 'alpha' of type Scalar is annotated (a!)",
        custom="- func: my::f(Tensor self, Scalar(a!) alpha) -> ()\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "returns-bool",
        "functions.yaml:1",
        "returns 'bool'",
        "- op: allclose\n  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "returns-int",
        "custom_ops.yaml:1",
        "returns 'int'",
        custom="- func: my::f(Tensor self) -> int\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "returns-tensor-list",
        "custom_ops.yaml:1",
        "returns 'Tensor[]'",
        custom="- func: my::f(Tensor self) -> Tensor[]\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "returns-optional-tensor",
        "custom_ops.yaml:1",
        "returns 'Tensor?'",
        custom="- func: my::f(Tensor self) -> Tensor?\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "mutable-positional-returned",
        "custom_ops.yaml:1",
        "mutable positional args",
        custom="- func: my::f(Tensor(a!) x) -> Tensor(a!)\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "returns-non-out",
        "custom_ops.yaml:1",
        "matching return",
        custom="- func: my::f.out(Tensor self, *, Tensor(a!) out, Tensor(b!) scratch) -> Tensor\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "unsupported-generator",
        "functions.yaml:1",
        "argument 'generator' has type Generator?, which Kiln cannot unbox",
        "- op: bernoulli.out\n  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "unsupported-dimname",
        "custom_ops.yaml:1",
        "argument 'dim' has type Dimname, which Kiln cannot unbox",
        custom="- func: my::f.out(Tensor self, Dimname dim, *, Tensor(a!) out) -> Tensor(a!)\n",
    ),
    Case(
        "unsupported-device",
        "custom_ops.yaml:1",
        "argument 'device' has type Device, which Kiln cannot unbox",
        custom="- func: my::f.out(Tensor self, Device device, *, Tensor(a!) out) -> Tensor(a!)\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "unsupported-storage",
        "custom_ops.yaml:1",
        "argument 's' has type Storage, which Kiln cannot unbox",
        custom="- func: my::f.out(Tensor self, Storage s, *, Tensor(a!) out) -> Tensor(a!)\n"
        "  kernels: [{arg_meta: null, kernel_name: k::f}]\n",
    ),
    Case(
        "duplicate-op",
        "functions.yaml:5",
        "declared twice (first at",
        ADD + ADD,
    ),
    Case(
        "duplicate-op-across-files",
        "custom_ops.yaml:1",
        "functions.yaml:1",
        ADD,
        custom="- func: add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)"
        " -> Tensor(a!)\n",
    ),
    # ---- kernels ----
    Case(
        "missing-kernel-name",
        "functions.yaml:3",
        "has no 'kernel_name'",
        "- op: add.out\n  kernels:\n    - arg_meta: null\n",
    ),
    Case(
        "kernel-name-no-namespace",
        "functions.yaml:4",
        "has no namespace",
        "- op: add.out\n  kernels:\n    - arg_meta: null\n      kernel_name: add_out\n",
    ),
    Case(
        "kernel-name-with-native",
        "functions.yaml:4",
        "the codegen appends '::native' itself; write 'kiln::portable::add_out'",
        "- op: add.out\n  kernels:\n    - arg_meta: null\n"
        "      kernel_name: kiln::portable::native::add_out\n",
    ),
    Case(
        "kernel-name-not-identifier",
        "functions.yaml:4",
        "is not a C++ identifier",
        "- op: add.out\n  kernels:\n    - arg_meta: null\n      kernel_name: my-ns::add_out\n",
    ),
    Case(
        "unknown-kernel-backend",
        "functions.yaml:4",
        "unknown backend 'cuda'",
        "- op: add.out\n  kernels:\n    - arg_meta: null\n      backend: cuda\n"
        "      kernel_name: k::f\n",
    ),
    Case(
        "two-default-kernels",
        "functions.yaml:5",
        "two portable kernels for key 'default' (the other is at",
        "- op: add.out\n  kernels:\n    - arg_meta: null\n      kernel_name: k::f\n"
        "    - arg_meta: null\n      kernel_name: k::g\n",
    ),
    Case(
        "dispatch-and-kernel",
        "functions.yaml:5",
        "two portable kernels for key 'default'",
        "- op: add.out\n  dispatch:\n    CPU: k::f\n"
        "  kernels:\n    - arg_meta: null\n      kernel_name: k::g\n",
    ),
    Case(
        "overlapping-keys",
        "functions.yaml:6",
        "key 'v1/6;0|6;0|6;0'",
        "- op: add.out\n"
        "  type_alias: {T0: [Float, Double], T1: [Float]}\n"
        "  dim_order_alias: {D0: [0]}\n"
        "  kernels:\n"
        "    - {arg_meta: {self: [T0, D0], other: [T0, D0], out: [T0, D0]}, kernel_name: k::f}\n"
        "    - {arg_meta: {self: [T1, D0], other: [T1, D0], out: [T1, D0]}, kernel_name: k::g}\n",
    ),
    # ---- arg_meta and aliases ----
    Case(
        "unknown-type-alias",
        "functions.yaml:6",
        "unknown type alias 'T9'",
        KEYED.replace("self: [T0", "self: [T9"),
    ),
    Case(
        "unknown-dim-order-alias",
        "functions.yaml:7",
        "unknown dim order alias 'D9'",
        KEYED.replace("other: [T0, D0]", "other: [T0, D9]"),
    ),
    Case(
        "unknown-dtype",
        "functions.yaml:2",
        "did you mean 'Float'",
        KEYED.replace("[Float]", "[Flaot]"),
    ),
    Case(
        "repeated-dtype",
        "functions.yaml:2",
        "listed twice",
        KEYED.replace("[Float]", "[Float, Float]"),
    ),
    Case(
        "arg-not-in-schema",
        "functions.yaml:7",
        "not an argument of aten::add.out",
        KEYED.replace("other:", "othr:"),
    ),
    Case(
        "arg-not-a-tensor",
        "functions.yaml:8",
        "which is a Scalar, not a tensor",
        KEYED.replace("        out:", "        alpha: [T0, D0]\n        out:"),
    ),
    Case(
        "tensor-left-out",
        "functions.yaml:6",
        "leaves out tensor argument(s) out",
        KEYED.replace("        out: [T0, D0]\n", ""),
    ),
    Case(
        "arg-meta-not-pair",
        "functions.yaml:6",
        "must be a list",
        KEYED.replace("self: [T0, D0]", "self: T0"),
    ),
    Case(
        "arg-meta-three-items",
        "functions.yaml:6",
        "has 3 items, not 2",
        KEYED.replace("self: [T0, D0]", "self: [T0, D0, D0]"),
    ),
    Case(
        "arg-meta-empty",
        "functions.yaml:3",
        "'arg_meta' is empty",
        "- op: add.out\n  kernels:\n    - arg_meta: {}\n      kernel_name: k::f\n",
    ),
    Case(
        "bad-dim-order", "functions.yaml:3", "not a permutation", KEYED.replace("[0, 1]", "[0, 0]")
    ),
    Case("dim-order-not-ints", "functions.yaml:3", "not an int", KEYED.replace("[0, 1]", "[0, x]")),
    # ---- command line ----
    Case(
        "unknown-backend-flag",
        "--backends",
        "unknown backend 'npu'",
        ADD,
        args=["--backends", "portable,npu"],
    ),
    Case("bad-lib-name", "--lib-name", "not a C identifier", ADD, args=["--lib-name", "my-lib"]),
    Case(
        "bad-root-op",
        "--root-ops",
        "is not an operator name",
        ADD,
        args=["--root-ops", "add.out(x)"],
    ),
    Case(
        "missing-functions-yaml",
        "missing.yaml",
        "file not found",
        args=["--functions-yaml", "{tmp}/missing.yaml"],
    ),
    Case(
        "missing-selection-file",
        "nope.yaml",
        "file not found",
        ADD,
        args=["--selected-ops", "{tmp}/nope.yaml"],
    ),
    # ---- selection ----
    Case("selection-syntax", "sel.yaml:2", "YAML syntax error", ADD, selection="operators: [\n"),
    Case(
        "selection-not-mapping",
        "sel.yaml:1",
        "must be a mapping",
        ADD,
        selection="- aten::add.out\n",
    ),
    Case(
        "selection-unknown-key",
        "sel.yaml:1",
        "did you mean 'operators'",
        ADD,
        selection="operator: {}\n",
    ),
    Case(
        "selection-operators-list",
        "sel.yaml:2",
        "'operators' must be a mapping",
        ADD,
        selection="operators:\n  - aten::add.out\n",
    ),
    Case(
        "selection-flag-type",
        "sel.yaml:1",
        "must be true or false",
        ADD,
        selection="include_all_operators: 1\n",
    ),
    Case(
        "selection-no-namespace",
        "sel.yaml:2",
        "has no namespace",
        ADD,
        selection="operators:\n  add.out: {}\n",
    ),
    Case(
        "selection-op-key",
        "sel.yaml:2",
        "did you mean 'is_root_operator'",
        ADD,
        selection="operators:\n  aten::add.out: {is_root: true}\n",
    ),
    Case(
        "selection-bad-kernel-key",
        "sel.yaml:4",
        "bad kernel key 'v1/six'",
        ADD,
        selection="operators:\n  aten::add.out: {}\n"
        "et_kernel_metadata:\n  aten::add.out: [v1/six]\n",
    ),
    # ---- selected ops without kernels ----
    Case(
        "selected-op-not-declared",
        "sel.yaml:3",
        "aten::mul.out is selected but no YAML entry declares it",
        ADD,
        selection="operators:\n  aten::add.out: {}\n  aten::mul.out: {}\n",
    ),
    Case(
        "root-op-not-declared",
        "--root-ops",
        "aten::mul.out is selected",
        ADD,
        args=["--root-ops", "mul.out"],
    ),
    Case(
        "entry-without-kernels",
        "functions.yaml:1",
        "aten::add.out is selected but has no kernel",
        "- op: add.out\n  dispatch: {}\n",
    ),
    Case(
        "no-kernel-on-chosen-backend",
        "functions.yaml:5",
        "aten::mul.out is selected but has no kernel on the chosen backends",
        "- op: add.out\n  kernels: [{arg_meta: null, backend: ascend, kernel_name: k::f}]\n\n\n"
        "- op: mul.out\n  kernels: [{arg_meta: null, kernel_name: k::g}]\n",
        args=["--backends", "ascend"],
    ),
    Case(
        "selected-key-without-kernel",
        "sel.yaml:4",
        "kernel key v1/7;0,1|7;0,1|7;0,1 (dtypes Double, Double, Double) has neither a matching "
        "nor a default kernel",
        KEYED,
        selection="operators:\n  aten::add.out: {}\net_kernel_metadata:\n"
        "  aten::add.out: ['v1/7;0,1|7;0,1|7;0,1']\n",
    ),
]


def _location(case: Case, tmp: Path) -> str:
    if case.where.startswith("--"):
        return case.where
    return str(tmp / case.where)


def _run(case: Case, tmp: Path, *, subprocess: bool = False) -> tuple[int, str]:
    args = [arg.replace("{tmp}", str(tmp)) for arg in case.args]
    if case.functions is not None:
        args += ["--functions-yaml", write(tmp, "functions.yaml", case.functions)]
    if case.custom is not None:
        args += ["--custom-ops-yaml", write(tmp, "custom_ops.yaml", case.custom)]
    if case.selection is not None:
        args += ["--selected-ops", write(tmp, "sel.yaml", case.selection)]
    runner = run_codegen_process if subprocess else run_codegen
    run = runner(tmp / "out", *args)
    return run.returncode, run.stderr


def _check(case: Case, tmp: Path, returncode: int, stderr: str) -> None:
    assert returncode == 1, stderr
    assert "Traceback" not in stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith(_location(case, tmp) + ": "), stderr
    message, dash, fix = lines[0].partition(" — ")
    assert dash and fix.strip(), f"no fix hint: {stderr}"
    assert case.says in lines[0], stderr
    assert not (tmp / "out" / "RegisterKernels.cpp").exists()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, tmp_path: Path) -> None:
    returncode, stderr = _run(case, tmp_path)
    _check(case, tmp_path, returncode, stderr)


@pytest.mark.parametrize(
    "case_id", ["yaml-syntax", "unknown-op", "selected-op-not-declared", "missing-functions-yaml"]
)
def test_bad_input_as_subprocess(case_id: str, tmp_path: Path) -> None:
    case = next(c for c in CASES if c.id == case_id)
    returncode, stderr = _run(case, tmp_path, subprocess=True)
    _check(case, tmp_path, returncode, stderr)


def test_usage_errors_exit_1_without_traceback(tmp_path: Path) -> None:
    run = run_codegen(tmp_path / "out")  # no YAML
    assert run.returncode == 1
    assert run.stderr.startswith("python -m kiln.codegen: no operator YAML given — ")
    run = run_codegen_process(
        tmp_path / "out", "--functions-yaml", str(REPO / "functions.yaml"), "--bogus"
    )
    assert run.returncode == 1
    assert "unrecognized arguments: --bogus" in run.stderr and "Traceback" not in run.stderr


def test_unwritable_output_dir(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    run = run_codegen(blocker / "out", "--functions-yaml", str(REPO / "functions.yaml"))
    assert run.returncode == 1
    assert "Traceback" not in run.stderr and " — " in run.stderr
