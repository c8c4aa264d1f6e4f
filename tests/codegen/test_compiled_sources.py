"""python -m kiln.codegen.compiled_sources: a library compiles its operators' kernel sources and the
util/ sources their #include graph reaches, nothing else."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from codegen_testing import REPO, write

from kiln.codegen import compiled_sources

PORTABLE = REPO / "kernels" / "portable"
ALL_SOURCES = sorted(str(p) for p in (PORTABLE / "cpu").rglob("*.cpp"))


def plan(
    tmp_path: Path, selection: str, sources: list[str], kernel_dir: Path, include: Path
) -> tuple[list[str], list[str]]:
    listed = write(tmp_path, "sources.txt", "".join(f"{s}\n" for s in sources))
    output = tmp_path / "compiled.txt"
    depfile = tmp_path / "compiled.deps"
    stderr = io.StringIO()
    argv = ["--selected-ops", write(tmp_path, "sel.yaml", selection), "--sources", listed]
    argv += ["--kernel-dir", str(kernel_dir), "--include-dir", str(include)]
    argv += ["--output", str(output), "--depfile", str(depfile)]
    with contextlib.redirect_stderr(stderr):
        code = compiled_sources.main(argv)
    assert code == 0, stderr.getvalue()
    return output.read_text().split(), depfile.read_text().split()


def names(paths: list[str]) -> set[str]:
    return {str(Path(p).relative_to(PORTABLE / "cpu")) for p in paths}


def test_add_compiles_its_source_and_the_util_it_includes(tmp_path: Path) -> None:
    sources, read = plan(tmp_path, "operators:\n  aten::add.out: {}\n", ALL_SOURCES, PORTABLE, REPO)
    compiled = names(sources)
    assert "op_add.cpp" in compiled
    assert {
        "util/elementwise/binary_driver.cpp",
        "util/elementwise/broadcast.cpp",
        "util/vec/convert.cpp",
    } <= compiled
    assert not {"op_convolution.cpp", "util/linalg/gemm.cpp", "op_sub.cpp"} & compiled
    assert str(PORTABLE / "cpu/op_add.cpp") in read


def test_every_operator_or_only_user_operators(tmp_path: Path) -> None:
    everything, _ = plan(
        tmp_path, "include_all_operators: true\noperators: {}\n", ALL_SOURCES, PORTABLE, REPO
    )
    assert everything == ALL_SOURCES
    # A user's own operator has no Kiln source: nothing of Kiln's is compiled.
    own, _ = plan(tmp_path, "operators:\n  acme::double_it.out: {}\n", ALL_SOURCES, PORTABLE, REPO)
    assert own == []


def test_the_util_graph_is_followed_through_headers(tmp_path: Path) -> None:
    # op_x.cpp includes a.h; a.h includes b.h; b.cpp exists, and so does the unrelated c.cpp.
    root = tmp_path / "tree"
    cpu = root / "kernels/portable/cpu"
    (cpu / "util").mkdir(parents=True)
    include = '#include "kernels/portable/cpu/util/{}.h"\n'
    (cpu / "op_x.cpp").write_text(include.format("a") + '#include "runtime/core/tensor.h"\n')
    (cpu / "util/a.h").write_text(include.format("b"))
    (cpu / "util/b.h").write_text("")
    (cpu / "util/b.cpp").write_text(include.format("b"))
    (cpu / "util/c.cpp").write_text("")
    listed = [str(cpu / name) for name in ("op_x.cpp", "util/b.cpp", "util/c.cpp")]
    sources, read = plan(
        tmp_path, "operators:\n  aten::x.out: {}\n", listed, root / "kernels/portable", root
    )
    assert sources == [str(cpu / "op_x.cpp"), str(cpu / "util/b.cpp")]
    assert sorted(read) == sorted(
        str(cpu / n) for n in ("op_x.cpp", "util/a.h", "util/b.h", "util/b.cpp")
    )
