"""Pure pieces of the generator: kernel keys, type mapping, text helpers, the schema cache."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import codegen_testing  # noqa: F401  (keeps the schema cache out of ~/.cache)
import pytest
from hypothesis import given
from hypothesis import strategies as st

from kiln.codegen.api.names import c_string, mangle
from kiln.codegen.api.types import arg_type
from kiln.codegen.dest.cpp import wrap_call
from kiln.codegen.model import schemas
from kiln.codegen.model.kernel_keys import DTYPE_CODES, KernelKey, KeyArg, expand_keys
from kiln.codegen.model.schema_types import normalize
from kiln.codegen.wording import with_article

key_args = st.builds(
    KeyArg,
    st.sampled_from(sorted(DTYPE_CODES.values())),
    st.integers(0, 5).flatmap(lambda n: st.permutations(list(range(n))).map(tuple)),
)


@given(st.lists(key_args, min_size=1, max_size=6))
def test_kernel_key_round_trip(args: list[KeyArg]) -> None:
    key = KernelKey(tuple(args))
    text = key.native_string()
    assert text.startswith("v1/")
    assert KernelKey.parse(text) == key
    assert key.table_string() == text


def test_default_key_spellings() -> None:
    assert KernelKey().native_string() == "default"
    assert KernelKey().table_string() == ""
    assert KernelKey.parse("default").is_default


@pytest.mark.parametrize("text", ["v1/", "x1/6;0", "v1/6", "v1/a;0", "v1/6;0,x", "6;0"])
def test_bad_kernel_keys(text: str) -> None:
    with pytest.raises(ValueError):
        KernelKey.parse(text)


@given(
    st.lists(st.sampled_from(sorted(DTYPE_CODES)), min_size=1, max_size=4, unique=True),
    st.lists(st.sampled_from(sorted(DTYPE_CODES)), min_size=1, max_size=3, unique=True),
    st.integers(1, 3),
)
def test_expand_keys_is_the_cartesian_product(t0: list[str], t1: list[str], orders: int) -> None:
    dim_orders = [(0, 1), (1, 0), (0, 1, 2)][:orders]
    args = [("T0", "D0"), ("T1", "D0"), ("T0", "D0")]
    keys = expand_keys(args, {"T0": t0, "T1": t1}, {"D0": dim_orders})
    assert len(keys) == len(t0) * len(t1) * orders == len(set(keys))
    for key in keys:
        assert key.args[0] == key.args[2]  # one alias, one value within a key
        assert len({arg.dim_order for arg in key.args}) == 1
    assert math.prod([len(t0), len(t1), orders]) == len(keys)


@pytest.mark.parametrize(
    ("schema_type", "mutable", "cpp", "kind"),
    [
        ("Tensor", False, "const kiln::Tensor&", "Tensor"),
        ("Tensor", True, "kiln::Tensor&", "Tensor"),
        ("Tensor?", False, "const std::optional<kiln::Tensor>&", "OptionalTensor"),
        ("Tensor[]", True, "kiln::ArrayRef<kiln::Tensor>", "TensorList"),
        ("Tensor?[]", False, "kiln::ArrayRef<std::optional<kiln::Tensor>>", "OptionalTensorList"),
        ("SymInt", False, "int64_t", "Int"),
        ("SymInt?", False, "std::optional<int64_t>", "OptionalInt"),
        ("int[2]", False, "kiln::IntArrayRef", "IntList"),
        ("SymInt[]", False, "kiln::IntArrayRef", "IntList"),
        ("int[1]?", False, "std::optional<kiln::IntArrayRef>", "OptionalIntList"),
        ("float", False, "double", "Double"),
        ("float[]", False, "kiln::ArrayRef<double>", "DoubleList"),
        ("float[]?", False, "std::optional<kiln::ArrayRef<double>>", "OptionalDoubleList"),
        ("Tensor[]", False, "kiln::ArrayRef<kiln::Tensor>", "TensorList"),
        ("bool[3]", False, "kiln::ArrayRef<bool>", "BoolList"),
        ("Scalar?", False, "const std::optional<kiln::Scalar>&", "OptionalScalar"),
        ("str", False, "std::string_view", "String"),
        ("ScalarType?", False, "std::optional<kiln::ScalarType>", "OptionalScalarType"),
        ("MemoryFormat", False, "kiln::MemoryFormat", "MemoryFormat"),
        ("Layout?", False, "std::optional<kiln::Layout>", "OptionalLayout"),
    ],
)
def test_type_mapping(schema_type: str, mutable: bool, cpp: str, kind: str) -> None:
    binding = arg_type(schema_type, mutable=mutable)
    assert binding is not None
    assert (binding.cpp, binding.kind) == (cpp, kind)


@pytest.mark.parametrize(
    "schema_type", ["Generator?", "Device", "Storage", "str[]", "Scalar[]", "bool[]?", "Tensor[]?"]
)
def test_unsupported_types(schema_type: str) -> None:
    assert arg_type(schema_type, mutable=False) is None


def test_unboxing_expressions() -> None:
    tensor = arg_type("Tensor", mutable=False)
    scalar_type = arg_type("ScalarType", mutable=False)
    assert tensor is not None and scalar_type is not None
    assert tensor.unbox_expr("stack[0]") == "stack[0]->toTensor()"
    assert scalar_type.unbox_expr("stack[2]") == "kiln::unbox::scalar_type(*stack[2])"
    scales = arg_type("float[]?", mutable=False)
    assert scales is not None
    assert scales.unbox_expr("stack[3]") == "kiln::unbox::optional_double_list(*stack[3])"
    assert normalize("SymInt[2]?") == "int[]?"


def test_text_helpers() -> None:
    assert c_string('a"b\\c') == '"a\\"b\\\\c"'
    assert c_string("é") == '"\\xc3\\xa9"'
    assert mangle("aten::add.Scalar_out") == "aten_add_Scalar_out"
    assert wrap_call("f", ["a", "b"], ";") == "f(a, b);"
    wrapped = wrap_call("f", ["x" * 40, "y" * 40, "z" * 40], ";")
    assert wrapped.splitlines() == [
        "f(",
        "    " + "x" * 40 + ", " + "y" * 40 + ",",
        "    " + "z" * 40 + ");",
    ]


def test_a_name_takes_the_article_it_is_said_with() -> None:
    # Messages put type and kind names after "a": "an int", never "a Int".
    for name in ("int", "Int", "Int8", "IntList", "int[]", "object", "OptionalTensorList"):
        assert with_article(name) == f"an {name}"
    for name in ("Tensor", "Tensor[]", "float", "Scalar", "uint8", "UInt16", "user_input"):
        assert with_article(name) == f"a {name}"
    assert with_article("Undefined") == "an Undefined"


def test_schema_cache_cold_warm_and_corrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KILN_CODEGEN_CACHE_DIR", str(tmp_path))
    cold = schemas.AtenSchemas().index
    files = list(tmp_path.glob("aten-schemas-*.json"))
    assert len(files) == 1
    assert cold.lookup("relu.out") == "relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"
    assert "view_copy.out" in cold.out_names  # torchgen's autogenerated out variants count
    assert cold.lookup("add.Tensor") is not None and "add.Tensor" not in cold.out_names
    assert schemas._torch_version(schemas.native_yaml_paths()[0]).startswith("2.")
    warm = schemas.AtenSchemas().index
    assert warm == cold
    files[0].write_text("{not json")
    assert schemas.AtenSchemas().index == cold  # a corrupt cache is rebuilt, never trusted
    assert json.loads(files[0].read_text())["schemas"]["relu.out"]
    monkeypatch.setenv("KILN_CODEGEN_CACHE", "0")
    os.unlink(files[0])
    assert schemas.AtenSchemas().index == cold
    assert not list(tmp_path.glob("aten-schemas-*.json"))


def test_unwritable_cache_dir_is_ignored(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("KILN_CODEGEN_CACHE_DIR", str(blocker / "cache"))
    assert schemas.AtenSchemas().index.lookup("add.out") is not None
