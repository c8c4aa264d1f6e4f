"""python -m kiln.codegen.missing_ops: every cause reproduced with a real manifest and, for the
symbol case, a real kernel library built with the wrong namespace."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from executorch_export import write_pte, xnnpack_pte_bytes

from buildtools import REPO_ROOT, run
from kiln.codegen import cli, missing_ops, oplist

OPS_YAML = """\
- op: add.out
  kernels:
    - arg_meta: null
      kernel_name: my_kernels::add_out
- op: mul.out
  type_alias:
    T0: [Float]
  dim_order_alias:
    D0: [0, 1]
  kernels:
    - arg_meta:
        self: [T0, D0]
        other: [T0, D0]
        out: [T0, D0]
      kernel_name: my_kernels::mul_float_out
- op: relu.out
  kernels:
    - arg_meta: null
      kernel_name: my_kernels::relu_out
"""

# add_out is defined outside `native`: the codegen binds my_kernels::native::add_out.
KERNELS_CPP = """\
#include "runtime/core/scalar.h"
#include "runtime/kernel/kernel_runtime_context.h"
namespace my_kernels {
kiln::Tensor& add_out(kiln::KernelRuntimeContext&, const kiln::Tensor&, const kiln::Tensor&,
                      const kiln::Scalar&, kiln::Tensor& out) { return out; }
namespace native {
kiln::Tensor& mul_float_out(kiln::KernelRuntimeContext&, const kiln::Tensor&,
                            const kiln::Tensor&, kiln::Tensor& out) { return out; }
}  // namespace native
}  // namespace my_kernels
"""


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("missing_ops")
    (root / "ops.yaml").write_text(OPS_YAML)
    status = cli.main(
        [
            "--functions-yaml",
            str(root / "ops.yaml"),
            "--root-ops",
            "aten::add.out,aten::mul.out",
            "--output-dir",
            str(root / "gen"),
            "--lib-name",
            "my_lib",
        ]
    )
    assert status == 0
    (root / "kernels.cpp").write_text(KERNELS_CPP)
    run(
        [
            "g++",
            "-std=c++17",
            f"-I{REPO_ROOT}",
            "-c",
            str(root / "kernels.cpp"),
            "-o",
            str(root / "kernels.o"),
        ]
    )
    run(["ar", "rcs", str(root / "libmy_kernels.a"), str(root / "kernels.o")])
    # The same library built with its manifest embedded, as a real archive.
    embedded = root / "embedded"
    argv = ["--functions-yaml", str(root / "ops.yaml"), "--root-ops", "aten::add.out,aten::mul.out"]
    argv += ["--output-dir", str(embedded), "--lib-name", "my_lib", "--embed-manifest"]
    assert cli.main(argv) == 0
    registration = embedded / "RegisterKernels.o"
    run(
        [
            "g++",
            "-std=c++17",
            f"-I{REPO_ROOT}",
            f"-I{embedded}",
            "-c",
            str(embedded / "RegisterKernels.cpp"),
            "-o",
            str(registration),
        ]
    )
    run(["ar", "rcs", str(root / "libmy_lib.a"), str(registration)])
    return {
        "archive": root / "libmy_lib.a",
        "manifest": root / "gen/my_lib.manifest.json",
        "yaml": root / "ops.yaml",
        "kernels": root / "libmy_kernels.a",
        "root": root,
    }


def check(library: dict[str, Path], *argv: str) -> tuple[int, dict[str, object]]:
    """Runs the tool with --json; returns the exit code and the parsed document."""
    args = [
        "--library",
        str(library["manifest"]),
        "--functions-yaml",
        str(library["yaml"]),
        "--json",
    ]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        status = missing_ops.main([*args, *argv])
    assert "Traceback" not in stderr.getvalue(), stderr.getvalue()
    return status, json.loads(stdout.getvalue())


def test_installed_as_a_module_entry_point(library: dict[str, Path]) -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "kiln.codegen.missing_ops",
            "--library",
            str(library["manifest"]),
            "--ops",
            "mul.out",
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
    )
    assert completed.returncode == 0, completed.stderr
    assert "0 missing, 0 warnings" in completed.stdout


def only_finding(document: dict[str, object]) -> dict[str, object]:
    findings = document["findings"]
    assert isinstance(findings, list) and len(findings) == 1, findings
    finding = findings[0]
    assert isinstance(finding, dict)
    return finding


def test_nothing_missing_exits_zero(library: dict[str, Path]) -> None:
    status, document = check(library, "--ops", "aten::add.out,aten::mul.out")
    assert status == 0
    assert document["summary"] == {"missing": 0, "warnings": 0}
    assert document["library"] == "my_lib" and document["version"] == 1


def test_not_selected_gives_cmake_and_selection_lines(library: dict[str, Path]) -> None:
    status, document = check(library, "--ops", "aten::relu.out")
    finding = only_finding(document)
    assert status == 1 and finding["cause"] == "not_selected"
    assert (
        'add "aten::relu.out" to gen_selected_ops(LIB_NAME my_lib ROOT_OPS ...)'
        in finding["fix"][0]
    )
    assert "aten::relu.out: {is_root_operator: true" in finding["fix"][1]


def test_no_kernel_gives_the_yaml_entry_and_signature(library: dict[str, Path]) -> None:
    status, document = check(library, "--ops", "aten::sub.out")
    finding = only_finding(document)
    assert status == 1 and finding["cause"] == "no_kernel"
    fix = "\n".join(finding["fix"])
    assert "- op: sub.out" in fix and "kernel_name: my_kernels::sub_out" in fix
    assert "namespace my_kernels::native {" in fix
    assert "const kiln::Scalar& alpha," in fix and "kiln::Tensor& out);" in fix


def test_missing_dtype_names_the_key(library: dict[str, Path], tmp_path: Path) -> None:
    selection = tmp_path / "sel.yaml"
    selection.write_text(
        "operators:\n  aten::mul.out: {is_root_operator: true}\n"
        "et_kernel_metadata:\n  aten::mul.out: ['v1/5;0,1|5;0,1|5;0,1']\n"
    )
    status, document = check(library, "--selected-ops", str(selection))
    finding = only_finding(document)
    assert status == 1 and finding["cause"] == "missing_dtype"
    assert finding["key"] == "v1/5;0,1|5;0,1|5;0,1"
    assert "Half[0,1]" in finding["message"] and "Float[0,1]" in finding["message"]


def test_missing_dtype_from_a_model(library: dict[str, Path], tmp_path: Path) -> None:
    class HalfMul(torch.nn.Module):
        def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return x * y

    inputs = (torch.ones(2, 3, dtype=torch.half), torch.ones(2, 3, dtype=torch.half))
    program = tmp_path / "half_mul.pt2"
    torch.export.save(torch.export.export(HalfMul(), inputs), str(program))
    status, document = check(library, "--model", str(program))
    finding = only_finding(document)
    assert status == 1 and finding["cause"] == "missing_dtype" and finding["op"] == "aten::mul.out"
    assert finding["needed_by"] == str(program)


class _MulAddRelu(torch.nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.relu(x * y + y)


@pytest.mark.parametrize(
    ("dtype", "missing"),
    [
        (torch.float32, [("aten::relu.out", "not_selected", None)]),
        (
            torch.half,
            [
                ("aten::mul.out", "missing_dtype", "v1/5;0,1|5;0,1|5;0,1"),
                ("aten::relu.out", "not_selected", None),
            ],
        ),
    ],
)
def test_missing_ops_of_a_pte_program(
    library: dict[str, Path],
    tmp_path: Path,
    dtype: torch.dtype,
    missing: list[tuple[str, str, str | None]],
) -> None:
    # my_lib selected add.out (any dtype) and mul.out (Float only), not relu.out.
    inputs = (torch.ones(2, 3, dtype=dtype), torch.ones(2, 3, dtype=dtype))
    program = write_pte(tmp_path / "mul_add_relu.pte", _MulAddRelu(), inputs)
    status, document = check(library, "--program", str(program))
    findings = document["findings"]
    assert status == 1 and isinstance(findings, list)
    assert [(f["op"], f["cause"], f["key"]) for f in findings] == missing
    assert all(f["needed_by"] == str(program) for f in findings)


def test_a_damaged_pte_program_is_exit_code_2(
    library: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.pte"
    bad.write_bytes(b"\x10\0\0\0ET12" + bytes(8))
    argv = ["--library", str(library["manifest"]), "--program", str(bad)]
    assert missing_ops.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"{bad}: malformed or truncated") and "Traceback" not in err


def test_backend_fallback_is_a_warning(library: dict[str, Path]) -> None:
    status, document = check(library, "--ops", "aten::add.out", "--backend", "ascend")
    finding = only_finding(document)
    assert (
        status == 0 and finding["cause"] == "backend_fallback" and finding["severity"] == "warning"
    )
    assert "runs on portable" in finding["message"]


def test_functional_and_misspelled_names_get_suggestions(library: dict[str, Path]) -> None:
    status, document = check(library, "--ops", "aten::add.Tensor,aten::ad.out")
    findings = document["findings"]
    assert status == 1 and isinstance(findings, list)
    functional, unknown = findings
    assert functional["cause"] == "functional_name" and "aten::add.out" in functional["fix"][0]
    assert unknown["cause"] == "unknown_name" and "aten::add.out" in unknown["fix"][0]


def test_undefined_symbol_explains_the_native_namespace(library: dict[str, Path]) -> None:
    status, document = check(
        library, "--ops", "aten::add.out,aten::mul.out", "--kernel-libs", str(library["kernels"])
    )
    finding = only_finding(document)  # mul_float_out is defined where the codegen expects it
    assert status == 1 and finding["cause"] == "undefined_symbol"
    assert "my_kernels::native::add_out" in finding["message"]
    fix = finding["fix"][0]
    assert "defined as my_kernels::add_out" in fix and "appends '::native'" in fix


def test_table_output_for_people(
    library: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--library", str(library["manifest"]), "--functions-yaml", str(library["yaml"])]
    assert missing_ops.main([*argv, "--ops", "aten::relu.out"]) == 1
    out = capsys.readouterr().out
    assert "library my_lib" in out and "1 missing, 0 warnings" in out
    assert "1. MISSING aten::relu.out — a kernel exists but the op was not selected" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--library", "/nonexistent.json", "--ops", "add.out"],
            "/nonexistent.json: cannot read it",
        ),
        (["--library", "{manifest}"], "nothing to check"),
        (["--ops", "add.out"], "the following arguments are required: --library"),
        (["--library", "{bad}", "--ops", "add.out"], "not a Kiln library manifest"),
    ],
)
def test_bad_usage_exits_two(
    library: dict[str, Path], capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    bad = library["root"] / "bad.json"
    bad.write_text("{not json")
    argv = [a.format(manifest=library["manifest"], bad=bad) for a in argv]
    assert missing_ops.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_library_may_be_a_built_archive_with_an_embedded_manifest(
    library: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["--library", str(library["archive"]), "--functions-yaml", str(library["yaml"])]
    assert missing_ops.main([*argv, "--ops", "aten::add.out,aten::relu.out", "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["library"] == "my_lib"
    assert [f["cause"] for f in document["findings"]] == ["not_selected"]


def test_binary_without_a_manifest_is_a_clear_error(
    library: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    assert missing_ops.main(["--library", str(library["kernels"]), "--ops", "add.out"]) == 2
    err = capsys.readouterr().err
    assert "no embedded manifest found" in err and "EMBED_MANIFEST" in err


def _module(cwd: Path, module: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", module, *argv], cwd=cwd, capture_output=True, text=True
    )


def test_diagnosis_does_not_depend_on_the_working_directory(tmp_path: Path) -> None:
    # The library is generated with a relative YAML path; the tool runs from elsewhere.
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    elsewhere.mkdir()
    (project / "ops.yaml").write_text(OPS_YAML)
    generated = _module(
        project,
        "kiln.codegen",
        *("--functions-yaml", "ops.yaml", "--root-ops", "aten::add.out"),
        *("--output-dir", "gen", "--lib-name", "my_lib"),
    )
    assert generated.returncode == 0, generated.stderr
    manifest = project / "gen" / "my_lib.manifest.json"
    answers = []
    for cwd, library in ((project, "gen/my_lib.manifest.json"), (elsewhere, str(manifest))):
        result = _module(
            cwd, "kiln.codegen.missing_ops", "--library", library, "--ops", "mul.out", "--json"
        )
        assert "Traceback" not in result.stderr, result.stderr
        document = json.loads(result.stdout)
        answers.append([(f["op"], f["cause"]) for f in document["findings"]])
    assert answers[0] == answers[1] == [("aten::mul.out", "not_selected")]


def test_a_yaml_that_is_gone_is_said_not_guessed(tmp_path: Path) -> None:
    (tmp_path / "ops.yaml").write_text(OPS_YAML)
    argv = ["--functions-yaml", str(tmp_path / "ops.yaml"), "--root-ops", "aten::add.out"]
    assert cli.main([*argv, "--output-dir", str(tmp_path / "gen"), "--lib-name", "my_lib"]) == 0
    (tmp_path / "ops.yaml").unlink()
    result = _module(
        tmp_path,
        "kiln.codegen.missing_ops",
        *("--library", str(tmp_path / "gen" / "my_lib.manifest.json"), "--ops", "mul.out"),
    )
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert f"generated from {tmp_path / 'ops.yaml'}, which is no longer there" in result.stderr
    assert "pass --functions-yaml / --custom-ops-yaml" in result.stderr


def test_kiln_operator_set_is_searched_from_the_manifest(tmp_path: Path) -> None:
    # As CMake generates a library from Kiln's functions.yaml: with Kiln's custom_ops.yaml too.
    yamls = ["--functions-yaml", str(REPO_ROOT / "functions.yaml")]
    yamls += ["--custom-ops-yaml", str(REPO_ROOT / "custom_ops.yaml")]
    out = tmp_path / "gen"
    argv = [*yamls, "--root-ops", "aten::add.out", "--output-dir", str(out), "--lib-name", "lib"]
    assert cli.main(argv) == 0
    manifest = json.loads((out / "lib.manifest.json").read_text())
    assert manifest["sources"]["custom_ops_yaml"] == [str(REPO_ROOT / "custom_ops.yaml")]
    stdout = io.StringIO()
    needs = "dim_order_ops::_to_dim_order_copy.out,aten::copy_"
    with contextlib.redirect_stdout(stdout):
        status = missing_ops.main(["--library", str(out / "lib.manifest.json"), "--ops", needs])
    assert status == 1
    report = stdout.getvalue()
    custom = re.escape(str(REPO_ROOT / "custom_ops.yaml"))
    functions = re.escape(str(REPO_ROOT / "functions.yaml"))
    assert re.search(rf"_to_dim_order_copy\.out has a kernel \({custom}:\d+\)", report), report
    assert re.search(rf"aten::copy_ has a kernel \({functions}:\d+\)", report), report


def test_a_version_1_manifest_names_one_custom_ops_yaml(tmp_path: Path) -> None:
    (tmp_path / "ops.yaml").write_text(OPS_YAML)
    custom = tmp_path / "custom.yaml"
    custom.write_text(
        "- func: acme::twice.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n"
        "  kernels:\n    - arg_meta: null\n      kernel_name: acme::twice_out\n"
    )
    argv = ["--functions-yaml", str(tmp_path / "ops.yaml"), "--custom-ops-yaml", str(custom)]
    argv += ["--root-ops", "aten::add.out", "--output-dir", str(tmp_path), "--lib-name", "lib"]
    assert cli.main(argv) == 0
    path = tmp_path / "lib.manifest.json"
    document = json.loads(path.read_text())
    document["schema_version"] = 1
    document["sources"]["custom_ops_yaml"] = str(custom)
    path.write_text(json.dumps(document))
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        assert missing_ops.main(["--library", str(path), "--ops", "acme::twice.out"]) == 1
    assert f"acme::twice.out has a kernel ({custom}:1)" in stdout.getvalue()


@pytest.fixture(scope="module")
def delegated_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A convolution and a ReLU, all of it in one XnnpackBackend delegate call."""
    module = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU())
    program = tmp_path_factory.mktemp("xnnpack") / "conv_relu.pte"
    program.write_bytes(xnnpack_pte_bytes(module, (torch.randn(1, 3, 6, 6),)))
    return program


def _kiln_library(directory: Path, *selection: str) -> Path:
    """The manifest of a library generated from Kiln's operator YAMLs, as CMake generates it."""
    argv = ["--functions-yaml", str(REPO_ROOT / "functions.yaml")]
    argv += ["--custom-ops-yaml", str(REPO_ROOT / "custom_ops.yaml"), *selection]
    assert cli.main([*argv, "--output-dir", str(directory), "--lib-name", "model_ops"]) == 0
    return directory / "model_ops.manifest.json"


def _diagnose(manifest: Path, program: Path) -> tuple[int, list[dict[str, object]]]:
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        status = missing_ops.main(["--library", str(manifest), "--program", str(program), "--json"])
    findings = json.loads(stdout.getvalue())["findings"]
    assert isinstance(findings, list)
    return status, findings


def test_an_operator_the_xnnpack_delegate_calls_is_named_with_the_fix(
    delegated_program: Path, tmp_path: Path
) -> None:
    """What the runtime reports from inside the delegate at load ("... needs the operator
    aten::convolution.out, which no backend of the method has a kernel for ...") is diagnosed
    before the run, and the program's own selection, which holds the delegate's operators, fixes
    it."""
    manifest = _kiln_library(tmp_path / "hand", "--root-ops", "aten::permute_copy.out")
    status, findings = _diagnose(manifest, delegated_program)
    assert status == 1
    by_op = {f["op"]: f for f in findings}
    # The convolution, its fused ReLU and the copy into the call's output (permute_copy is in).
    assert sorted(by_op) == ["aten::clamp.out", "aten::clone.out", "aten::convolution.out"]
    assert {f["cause"] for f in findings} == {"not_selected"}
    convolution = by_op["aten::convolution.out"]
    delegate = "XnnpackBackend delegate at plan 'forward', chain 0, instruction 0"
    assert convolution["needed_by"] == f"{delegated_program} ({delegate})"
    message = convolution["message"]
    assert isinstance(message, str) and f"Kiln's {delegate} calls it" in message
    assert (
        "needs the operator aten::convolution.out, which no backend of the method has a kernel "
        "for" in message
    )
    fix = convolution["fix"]
    assert isinstance(fix, list)
    assert f"kiln_add_operator_library(NAME model_ops MODEL {delegated_program} ...)" in fix[0]
    assert 'add "aten::convolution.out" to gen_selected_ops' in fix[1]
    # The fix: the library selected from the program has all the delegate calls.
    selection = tmp_path / "selected_operators.yaml"
    assert oplist.main(["--output", str(selection), "--model", str(delegated_program)]) == 0
    fixed = _kiln_library(tmp_path / "from_model", "--selected-ops", str(selection))
    assert _diagnose(fixed, delegated_program) == (0, [])


def test_a_delegate_kiln_does_not_run_is_diagnosed(
    delegated_program: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "vendor.pte"
    program.write_bytes(
        delegated_program.read_bytes().replace(b"XnnpackBackend", b"VendorNpu_v2x1")
    )
    manifest = _kiln_library(tmp_path / "lib", "--root-ops", "aten::add.out")
    status, findings = _diagnose(manifest, program)
    assert status == 1
    (finding,) = findings  # the library's operators cannot stand in for the delegate
    assert finding["op"] == "VendorNpu_v2x1" and finding["cause"] == "unregistered_delegate"
    assert finding["needed_by"] == str(program)
    message = finding["message"]
    assert isinstance(message, str)
    assert "plan 'forward', chain 0, instruction 0 calls delegate 'VendorNpu_v2x1'" in message
    assert "calls delegate 'VendorNpu_v2x1', which is not registered" in message
    fix = finding["fix"]
    assert isinstance(fix, list) and 'kiln::register_delegate("VendorNpu_v2x1"' in fix[0]
    assert missing_ops.main(["--library", str(manifest), "--program", str(program)]) == 1
    table = capsys.readouterr().out
    assert "1. MISSING VendorNpu_v2x1 — the program calls a delegate backend Kiln does not" in table
