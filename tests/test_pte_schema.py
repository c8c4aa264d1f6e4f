"""The checked-in Python object API of the .pte and .ptd schemas, and of the XNNPACK graph in a
delegate's payload, matches what flatc generates."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path("python") / "kiln" / "codegen" / "pte"
XNNPACK_SCHEMA = Path("runtime/executor/delegates/xnnpack/xnnpack_graph.fbs")


@pytest.mark.parametrize("schema", ["program", "data_file", "xnnpack_graph"])
def test_generated_python_is_current(tmp_path: Path, schema: str) -> None:
    if shutil.which("flatc") is None:
        pytest.fail("flatc is missing: tools/setup.sh installs flatbuffers-compiler")
    shutil.copytree(ROOT / "runtime" / "executor" / "schema", tmp_path / "runtime/executor/schema")
    (tmp_path / XNNPACK_SCHEMA).parent.mkdir(parents=True)
    shutil.copy(ROOT / XNNPACK_SCHEMA, tmp_path / XNNPACK_SCHEMA)
    shutil.copytree(ROOT / "tools", tmp_path / "tools")
    (tmp_path / PACKAGE).mkdir(parents=True)
    subprocess.run(["bash", "tools/gen_pte_schema.sh"], cwd=tmp_path, check=True)
    generated = f"{schema}_generated.py"
    regenerated = (tmp_path / PACKAGE / generated).read_text()
    checked_in = (ROOT / PACKAGE / generated).read_text()
    assert regenerated == checked_in, "run tools/gen_pte_schema.sh and commit the result"
