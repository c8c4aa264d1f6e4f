"""kiln.load on programs ExecuTorch's exporter writes: profiles, input checks and bad files. (The
models themselves are checked in test_models.py.)"""

from __future__ import annotations

import pytest
import torch
from executorch_export import pte_bytes
from models import zoo_model

import kiln


def test_profile_names_every_instruction() -> None:
    module, inputs = zoo_model("mlp").create()
    program = kiln.load(pte_bytes(module, inputs))
    program.run(*inputs, profile=True)
    profile = program.last_profile()
    assert [row.op for row in profile] == [
        "aten::permute_copy.out",
        "aten::addmm.out",
        "aten::relu.out",
        "aten::permute_copy.out",
        "aten::addmm.out",
    ]
    # The weights' transposes ran once at load (constant folding); the rest on portable.
    assert [row.backend for row in profile] == [
        "folded",
        "portable",
        "portable",
        "folded",
        "portable",
    ]
    table = str(profile)
    assert "aten::addmm.out" in table and "total" in table
    assert program.operators == ("aten::permute_copy.out", "aten::addmm.out", "aten::relu.out")


def test_bad_inputs_are_refused_with_the_difference() -> None:
    module, inputs = zoo_model("mlp").create()
    program = kiln.load(pte_bytes(module, inputs))
    with pytest.raises(kiln.KilnError, match="takes 1 inputs, got 2"):
        program.run(torch.randn(4, 16), torch.randn(4, 16))
    with pytest.raises(kiln.KilnError, match="expected dtype Float, got Double"):
        program.run(torch.randn(4, 16, dtype=torch.float64))
    with pytest.raises(kiln.KilnError, match="shape differs"):
        program.run(torch.randn(5, 16))
    with pytest.raises(kiln.KilnError, match="expected 2 dimensions, got 1"):
        program.run(torch.randn(16))
    # The program still runs after refusals.
    x = torch.randn(4, 16)
    torch.testing.assert_close(program.run(x)[0], module(x), rtol=1e-4, atol=1e-5)


def test_unknown_method_and_backend_are_clear_errors() -> None:
    pte = pte_bytes(*zoo_model("mlp").create())
    with pytest.raises(kiln.KilnError, match="program has no method 'backward'"):
        kiln.load(pte, method="backward")
    with pytest.raises(kiln.KilnError, match="unknown backend 'gpu'"):
        kiln.load(pte, backends=("gpu",))


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda b: b[:6], "too short for a .pte file"),
        (lambda b: b[:4] + b"XX12" + b[8:], 'not the identifier "ET12"'),
        (lambda b: b[: len(b) // 2], "truncated"),
        (lambda b: b[:8] + bytes(range(256)) * 4, "verifier rejects|truncated"),
    ],
    ids=["tiny", "identifier", "half", "garbage"],
)
def test_bad_files_are_invalid_programs(mutate: object, message: str) -> None:
    pte = pte_bytes(*zoo_model("mlp").create())
    with pytest.raises(kiln.KilnError, match=message) as error:
        kiln.load(mutate(pte))  # type: ignore[operator]
    assert error.value.code == "InvalidProgram"


def test_missing_file_is_a_clear_error(tmp_path: object) -> None:
    with pytest.raises(kiln.KilnError, match="cannot read .*nope.pte"):
        kiln.load(f"{tmp_path}/nope.pte")
