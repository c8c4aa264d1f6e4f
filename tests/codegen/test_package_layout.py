"""The codegen is kiln.codegen: importing it stays light, its command lines run under every name
the docs give (python -m kiln.codegen..., the console scripts, and python -m codegen... from a
source tree), and an installed Kiln claims no top-level ``codegen`` package."""

from __future__ import annotations

import importlib.metadata
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

import pytest
from codegen_testing import REPO

import kiln
import kiln.codegen

COMMANDS = ["", ".oplist", ".missing_ops", ".compiled_sources"]


def _python(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, capture_output=True, text=True, check=False
    )


def test_importing_the_codegen_loads_neither_torch_nor_the_extension(tmp_path: Path) -> None:
    # Every module of the package: CMake runs them at configure time, before kiln._C is built.
    modules = [m.name for m in pkgutil.walk_packages(kiln.codegen.__path__, "kiln.codegen.")]
    assert "kiln.codegen.cli" in modules and "kiln.codegen.pte.reader" in modules
    code = (
        "import importlib, sys\n"
        f"for name in {[m for m in modules if not m.endswith('__main__')]!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = [m for m in ('torch', 'kiln._C', 'kiln._C_aten') if m in sys.modules]\n"
        "assert not loaded, loaded\n"
    )
    result = _python(tmp_path, "-c", code)
    assert result.returncode == 0, result.stderr


def test_kiln_names_are_imported_on_first_use(tmp_path: Path) -> None:
    code = (
        "import sys, kiln\n"
        "assert 'kiln._C' not in sys.modules and 'torch' not in sys.modules\n"
        "from kiln import call_op, load\n"
        "assert 'kiln._C' in sys.modules and callable(call_op) and callable(load)\n"
    )
    result = _python(tmp_path, "-c", code)
    assert result.returncode == 0, result.stderr


def test_every_public_name_resolves_and_is_listed() -> None:
    for name in kiln.__all__:
        assert getattr(kiln, name) is not None, name
    assert set(kiln.__all__) <= set(dir(kiln))
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        kiln.not_a_name  # noqa: B018


@pytest.mark.parametrize("command", COMMANDS)
def test_python_m_kiln_codegen_runs_from_anywhere(command: str, tmp_path: Path) -> None:
    result = _python(tmp_path, "-m", f"kiln.codegen{command}", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: python -m kiln.codegen{command} ")


@pytest.mark.parametrize("command", COMMANDS)
def test_python_m_codegen_forwards_in_the_source_tree(command: str) -> None:
    result = _python(REPO, "-m", f"codegen{command}", "--help")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"usage: python -m kiln.codegen{command} ")


def test_the_forwarded_codegen_generates_and_fails_alike(tmp_path: Path) -> None:
    # Arguments and exit codes pass through the forwarding module unchanged.
    yaml = str(REPO / "functions.yaml")
    argv = ["--functions-yaml", yaml, "--root-ops", "aten::add.out", "--lib-name", "l"]
    result = _python(REPO, "-m", "codegen", *argv, "--output-dir", str(tmp_path / "gen"))
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "gen" / "RegisterKernels.cpp").is_file()
    result = _python(REPO, "-m", "codegen", *argv, "--output-dir", str(tmp_path), "--bogus")
    assert result.returncode == 1 and "unrecognized arguments: --bogus" in result.stderr


@pytest.mark.parametrize("script", ["kiln-codegen", "kiln-oplist", "kiln-missing-ops"])
def test_console_scripts_run_the_codegen(script: str) -> None:
    entry = next(e for e in importlib.metadata.entry_points(group="console_scripts", name=script))
    assert entry.value.startswith("kiln.codegen.")
    with pytest.raises(SystemExit) as exit_info:
        entry.load()(["--help"])
    assert exit_info.value.code == 0


def test_an_installed_kiln_has_no_top_level_codegen(tmp_path: Path) -> None:
    config = (REPO / "pyproject.toml").read_text()
    assert re.findall(r"^wheel\.packages = (.*)$", config, re.M) == ['["python/kiln"]']
    installed = importlib.metadata.files("kiln") or []
    assert not [f for f in installed if f.parts[0] == "codegen"]
    # Outside the source tree, `codegen` is not Kiln's (none at all, in Kiln's test environment).
    code = "import importlib.util; print(importlib.util.find_spec('codegen'))"
    result = _python(tmp_path, "-c", code)
    assert result.returncode == 0 and result.stdout.strip() == "None", result.stdout
