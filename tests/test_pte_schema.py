"""The checked-in Python object API of the .pte and .ptd schemas matches what flatc generates."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path("python") / "kiln" / "codegen" / "pte"


@pytest.mark.parametrize("schema", ["program", "data_file"])
def test_generated_python_is_current(tmp_path: Path, schema: str) -> None:
    if shutil.which("flatc") is None:
        pytest.fail("flatc is missing: tools/setup.sh installs flatbuffers-compiler")
    shutil.copytree(ROOT / "runtime" / "executor" / "schema", tmp_path / "runtime/executor/schema")
    shutil.copytree(ROOT / "tools", tmp_path / "tools")
    (tmp_path / PACKAGE).mkdir(parents=True)
    subprocess.run(["bash", "tools/gen_pte_schema.sh"], cwd=tmp_path, check=True)
    generated = f"{schema}_generated.py"
    regenerated = (tmp_path / PACKAGE / generated).read_text()
    checked_in = (ROOT / PACKAGE / generated).read_text()
    assert regenerated == checked_in, "run tools/gen_pte_schema.sh and commit the result"
