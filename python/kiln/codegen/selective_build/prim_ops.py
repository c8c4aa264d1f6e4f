"""The prim operators ExecuTorch's exporter emits for symbolic sizes, which Kiln's executor runs
itself (runtime/executor/prim_ops.cpp): a program needs no operator library for them, so
selection leaves them out and the missing-operator tools never report them."""

from __future__ import annotations

PRIM_OPERATORS = frozenset(
    {
        "aten::sym_size.int",
        "aten::sym_numel",
        "aten::_local_scalar_dense",
        "executorch_prim::add.Scalar",
        "executorch_prim::sub.Scalar",
        "executorch_prim::mul.Scalar",
        "executorch_prim::floordiv.Scalar",
        "executorch_prim::mod.Scalar",
        "executorch_prim::sym_max.Scalar",
        "executorch_prim::sym_min.Scalar",
        "executorch_prim::truediv.Scalar",
        "executorch_prim::eq.Scalar",
        "executorch_prim::gt.Scalar",
        "executorch_prim::lt.Scalar",
        "executorch_prim::ge.Scalar",
        "executorch_prim::le.Scalar",
        "executorch_prim::neg.Scalar",
        "executorch_prim::sym_float.Scalar",
        "executorch_prim::sym_int.Scalar",
        "executorch_prim::trunc.Scalar",
        "executorch_prim::ceil.Scalar",
        "executorch_prim::round.Scalar",
        "executorch_prim::sym_not.Scalar",
        "executorch_prim::sym_ite.Scalar",
        "executorch_prim::et_view.default",
        "executorch_prim::et_copy_index.tensor",
    }
)


def is_prim_operator(name: str) -> bool:
    """Whether ``name`` ("aten::sym_size.int"; "x" and "x.default" alike) is a prim operator."""
    base = name.removesuffix(".default")
    return base in PRIM_OPERATORS or f"{base}.default" in PRIM_OPERATORS
