"""The checked-in Python object API for the .pte schema matches what flatc generates from it."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GENERATED = ROOT / "python" / "kiln" / "codegen" / "pte" / "program_generated.py"


def test_generated_python_is_current(tmp_path: Path) -> None:
    if shutil.which("flatc") is None:
        pytest.fail("flatc is missing: tools/setup.sh installs flatbuffers-compiler")
    shutil.copytree(ROOT / "runtime" / "executor" / "schema", tmp_path / "runtime/executor/schema")
    shutil.copytree(ROOT / "tools", tmp_path / "tools")
    (tmp_path / "python" / "kiln" / "codegen" / "pte").mkdir(parents=True)
    subprocess.run(["bash", "tools/gen_pte_schema.sh"], cwd=tmp_path, check=True)
    regenerated = (
        tmp_path / "python" / "kiln" / "codegen" / "pte" / "program_generated.py"
    ).read_text()
    assert regenerated == GENERATED.read_text(), "run tools/gen_pte_schema.sh and commit the result"
