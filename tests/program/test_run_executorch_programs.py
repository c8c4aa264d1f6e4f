"""Programs ExecuTorch's exporter writes run on Kiln's executor and match eager PyTorch."""

from __future__ import annotations

import pytest
import torch
from executorch_export import pte_bytes

import kiln


class Mlp(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = torch.nn.Linear(8, 16)
        self.head = torch.nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.hidden(x)))


class SmallCnn(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(8)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.head = torch.nn.Linear(8 * 4 * 4, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.nn.functional.max_pool2d(torch.relu(self.norm(self.conv(x))), 2)
        y = y + torch.relu(self.conv2(y))
        return self.head(torch.flatten(y, 1))


class TwoInTwoOut(torch.nn.Module):
    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.relu(a @ b), a.abs() * 2


CASES = {
    "mlp": (Mlp, lambda: (torch.randn(2, 8),)),
    "cnn": (SmallCnn, lambda: (torch.randn(1, 3, 8, 8),)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_executorch_program_matches_eager(name: str) -> None:
    torch.manual_seed(0)
    make_module, make_inputs = CASES[name]
    module = make_module().eval()
    inputs = make_inputs()
    program = kiln.load(pte_bytes(module, inputs))
    for _ in range(2):  # a second run reuses the planned memory
        inputs = make_inputs()
        expected = module(*inputs)
        expected = expected if isinstance(expected, tuple) else (expected,)
        actual = program.run(*inputs)
        assert len(actual) == len(expected)
        for got, want in zip(actual, expected, strict=True):
            torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-5)


def test_profile_names_every_instruction() -> None:
    module = Mlp().eval()
    inputs = (torch.randn(2, 8),)
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
    assert all(row.backend == "portable" for row in profile)
    table = str(profile)
    assert "aten::addmm.out" in table and "total" in table
    assert program.operators == ("aten::permute_copy.out", "aten::addmm.out", "aten::relu.out")


def test_bad_inputs_are_refused_with_the_difference() -> None:
    module = Mlp().eval()
    program = kiln.load(pte_bytes(module, (torch.randn(2, 8),)))
    with pytest.raises(kiln.KilnError, match="takes 1 inputs, got 2"):
        program.run(torch.randn(2, 8), torch.randn(2, 8))
    with pytest.raises(kiln.KilnError, match="expected dtype Float, got Double"):
        program.run(torch.randn(2, 8, dtype=torch.float64))
    with pytest.raises(kiln.KilnError, match="shape differs"):
        program.run(torch.randn(3, 8))
    with pytest.raises(kiln.KilnError, match="expected 2 dimensions, got 1"):
        program.run(torch.randn(8))
    # The program still runs after refusals.
    x = torch.randn(2, 8)
    torch.testing.assert_close(program.run(x)[0], module(x), rtol=1e-4, atol=1e-5)


def test_unknown_method_and_backend_are_clear_errors() -> None:
    pte = pte_bytes(Mlp().eval(), (torch.randn(2, 8),))
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
    pte = pte_bytes(Mlp().eval(), (torch.randn(2, 8),))
    with pytest.raises(kiln.KilnError, match=message) as error:
        kiln.load(mutate(pte))  # type: ignore[operator]
    assert error.value.code == "InvalidProgram"


def test_missing_file_is_a_clear_error(tmp_path: object) -> None:
    with pytest.raises(kiln.KilnError, match="cannot read .*nope.pte"):
        kiln.load(f"{tmp_path}/nope.pte")
