"""Syntax-check Kiln's Ascend C device kernels against a real CANN toolkit's headers.

Every `kernels/ascend/op_*/*_kernel.cpp` is compiled with the host g++ in CANN's CPU-debug mode
(`ASCENDC_CPU_DEBUG`, `__CCE_KT_TEST__`, tikicpulib's stubs), `-fsyntax-only`, once per SoC. That
checks Kiln's code against the real headers' declarations, overload sets and `static_assert`s,
which Kiln's emulator only imitates. It runs nothing on a device and checks no run-time rule.

Deprecations: CANN's own headers call APIs they deprecate (8.1.RC1's kernel_check.h calls
`LocalTensor::GetLength`), so `-Werror=deprecated-declarations` would fail Kiln for CANN's code.
A deprecation warning fails the check only when g++ locates it in a file of this repository.

With --host, the host side that runs under CANN (kernels/ascend/common/host_cann.cpp) is also
syntax-checked, against the toolkit's ACL headers (acl/acl.h) and its platform API
(tiling/platform/platform_ascendc.h); a warning located in this repository fails it.

The headers are not redistributable, so CI cannot run this; docs/ascend.md records the last run.
Usage: python tools/ascend_check.py --cann /usr/local/Ascend/ascend-toolkit/latest [--host]
"""

from __future__ import annotations

import argparse
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
KERNEL_GLOB = "kernels/ascend/op_*/*_kernel.cpp"
# A kernel that declares this before including the headers runs on the cube cores alone.
CUBE_MARKER = re.compile(r"^\s*#\s*define\s+ASCENDC_CUBE_ONLY\b", re.MULTILINE)
# The CPU-debug mode of CANN's headers: tikicpulib's stubs stand in for the device compiler.
COMMON_FLAGS = (
    "-std=c++17",
    "-fsyntax-only",
    "-DASCENDC_CPU_DEBUG=1",
    "-DASCENDC_DEBUG=1",
    "-D__CCE_KT_TEST__=1",
)
# Under ascendc/include, in the order CANN's own CPU-debug CMake puts them.
ASCENDC_INCLUDE_DIRS = (
    "basic_api",
    "basic_api/impl",
    "basic_api/interface",
    "highlevel_api",
    "highlevel_api/lib",
    "highlevel_api/impl",
)
# Kiln's matmul kernel includes "lib/matmul_intf.h" as the device compiler's include path has it;
# the CPU-debug tree only has highlevel_api/lib/matmul/matmul_intf.h.
SHIM_FILE = "lib/matmul_intf.h"
SHIM_TEXT = '#include "matmul/matmul_intf.h"\n'
ERROR_LINES_SHOWN = 5
PARALLEL_COMPILES = 2
# Kiln's host code for KILN_ASCEND=cann, checked with --host.
HOST_SOURCES = ("kernels/ascend/common/host_cann.cpp",)
HOST_FLAGS = ("-std=c++17", "-fsyntax-only", "-Wall", "-Wextra", "-DKILN_ASCEND_CANN=1")
ACL_HEADER = "acl/acl.h"
PLATFORM_HEADER = "tiling/platform/platform_ascendc.h"


@dataclass(frozen=True)
class Soc:
    name: str
    aicore: int
    npu_arch: int
    dav: str  # the __DAV_<dav>__ core-version macro
    split_cores: bool  # separate vector and cube cores (__DAV_<dav>_VEC__ / _CUBE__)

    def defines(self, core: str) -> list[str]:
        flags = [
            f"-D__CCE_AICORE__={self.aicore}",
            f"-D__DAV_{self.dav}__",
            f"-D__NPU_ARCH__={self.npu_arch}",
        ]
        if self.split_cores:
            flags.append(f"-D__DAV_{self.dav}_{core}__")
        return flags


SOCS = {
    soc.name: soc
    for soc in (
        Soc("Ascend910B", aicore=220, npu_arch=2201, dav="C220", split_cores=True),
        Soc("Ascend310P", aicore=200, npu_arch=2002, dav="M200", split_cores=False),
    )
}


@dataclass(frozen=True)
class Kernel:
    path: Path  # relative to the repository root
    core: str  # "VEC" or "CUBE"

    @property
    def label(self) -> str:
        return "/".join(self.path.parts[-2:])


@dataclass(frozen=True)
class Toolkit:
    ascendc_include: Path  # <toolkit>/<arch>-linux/ascendc/include
    cpu_stub_include: Path  # <toolkit>/tools/tikicpulib/lib/include

    def include_flags(self, shim_dir: Path) -> list[str]:
        dirs = [self.cpu_stub_include, *(self.ascendc_include / d for d in ASCENDC_INCLUDE_DIRS)]
        return [f"-I{d}" for d in dirs] + [f"-I{shim_dir}", f"-I{REPO_ROOT}"]


@dataclass(frozen=True)
class HostHeaders:
    acl_include: Path  # holds acl/acl.h
    platform_include: Path  # holds tiling/platform/platform_ascendc.h

    def include_flags(self) -> list[str]:
        return [f"-I{self.acl_include}", f"-I{self.platform_include}", f"-I{REPO_ROOT}"]


@dataclass(frozen=True)
class Result:
    label: str  # a kernel (op_x/x_kernel.cpp) or a host source
    target: str  # the SoC, or "host"
    errors: tuple[str, ...]  # empty when the check passes


class UsageError(Exception):
    """Bad input: reported as one line naming the argument and the fix, exit status 2."""


def core_type(source: Path) -> str:
    return "CUBE" if CUBE_MARKER.search(source.read_text(encoding="utf-8")) else "VEC"


def discover_kernels(only: Sequence[str] = ()) -> list[Kernel]:
    """Every Ascend device kernel source, or those named in `only` (paths or op_*/x.cpp)."""
    found = sorted(REPO_ROOT.glob(KERNEL_GLOB))
    if only:
        wanted = [Path(p).resolve() if Path(p).exists() else REPO_ROOT / p for p in only]
        for path in wanted:
            if path.resolve() not in found:
                raise UsageError(
                    f"--kernels: {path} is not an Ascend kernel source; "
                    f"give paths matching {KERNEL_GLOB}"
                )
        found = [p for p in found if p in {w.resolve() for w in wanted}]
    return [Kernel(p.relative_to(REPO_ROOT), core_type(p)) for p in found]


def _toolkit_candidates(root: Path) -> list[Path]:
    # The path itself (an ascend-toolkit/<version> directory), an install's `latest` link, or the
    # Ascend install root above ascend-toolkit.
    return [root, root / "latest", root / "ascend-toolkit" / "latest"]


def find_toolkit(root: Path) -> Toolkit:
    if not root.is_dir():
        raise UsageError(f"--cann: {root} is not a directory; give a CANN ascend-toolkit directory")
    machine = platform.machine()
    for candidate in _toolkit_candidates(root):
        stubs = candidate / "tools" / "tikicpulib" / "lib" / "include"
        # Prefer the host's architecture; the headers are the same for every arch-linux tree.
        arch_dirs = sorted(
            candidate.glob("*-linux/ascendc/include"),
            key=lambda p: p.parent.parent.name != f"{machine}-linux",
        )
        arch_dirs = [d for d in arch_dirs if (d / "basic_api" / "kernel_operator.h").is_file()]
        if arch_dirs and (stubs / "stub_def.h").is_file():
            return Toolkit(arch_dirs[0], stubs)
    raise UsageError(
        f"--cann: {root} holds no CANN toolkit headers (<arch>-linux/ascendc/include and "
        "tools/tikicpulib/lib/include); give e.g. /usr/local/Ascend/ascend-toolkit/latest"
    )


def find_host_headers(toolkit: Toolkit) -> HostHeaders:
    """The ACL and platform headers beside the Ascend C headers: <arch>-linux/include holds acl/,
    and CANN ships tiling/platform/ with the high-level Ascend C API (an installed toolkit also
    copies it to <arch>-linux/include)."""
    arch_root = toolkit.ascendc_include.parent.parent
    acl = arch_root / "include"
    candidates = [arch_root / "include", toolkit.ascendc_include / "highlevel_api"]
    platform_dirs = [d for d in candidates if (d / PLATFORM_HEADER).is_file()]
    if not (acl / ACL_HEADER).is_file() or not platform_dirs:
        missing = ACL_HEADER if not (acl / ACL_HEADER).is_file() else PLATFORM_HEADER
        raise UsageError(
            f"--host: the toolkit under {arch_root} has no {missing}; give a toolkit with the "
            "ACL runtime headers, or leave out --host"
        )
    return HostHeaders(acl, platform_dirs[0])


def _in_kiln(line: str) -> bool:
    match = re.match(r"(.+?):\d+:\d+: ", line)
    return match is not None and Path(match.group(1)).resolve().is_relative_to(REPO_ROOT)


def _reported(line: str) -> bool:
    """An error, or where in Kiln's code an error or a deprecation comes from."""
    if ": error:" in line or ": fatal error:" in line:
        return True
    kiln_origin = "required from here" in line or "[-Wdeprecated-declarations]" in line
    return kiln_origin and _in_kiln(line)


def _errors_of(
    compiler: str, done: subprocess.CompletedProcess[str], kiln_warnings: bool
) -> tuple[str, ...]:
    lines = done.stderr.splitlines()
    errors = [ln for ln in lines if _reported(ln)]
    if kiln_warnings:
        errors += [ln for ln in lines if ": warning:" in ln and _in_kiln(ln) and ln not in errors]
    kiln_warning = any(
        ("[-Wdeprecated-declarations]" in ln or ": warning:" in ln) and _in_kiln(ln)
        for ln in errors
    )
    if done.returncode == 0 and not kiln_warning:
        return ()  # "required from here" lines of warnings only
    if not errors:
        errors = lines[-ERROR_LINES_SHOWN:] or [f"{compiler} exited with {done.returncode}"]
    return tuple(errors)


def check(compiler: str, toolkit: Toolkit, shim_dir: Path, kernel: Kernel, soc: Soc) -> Result:
    command = [
        compiler,
        *COMMON_FLAGS,
        *soc.defines(kernel.core),
        *toolkit.include_flags(shim_dir),
        str(REPO_ROOT / kernel.path),
    ]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT)
    return Result(kernel.label, soc.name, _errors_of(compiler, done, kiln_warnings=False))


def check_host(compiler: str, headers: HostHeaders, source: str) -> Result:
    command = [compiler, *HOST_FLAGS, *headers.include_flags(), str(REPO_ROOT / source)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT)
    return Result(source, "host", _errors_of(compiler, done, kiln_warnings=True))


def _parse(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--cann", required=True, type=Path, help="ascend-toolkit or its version")
    parser.add_argument("--soc", nargs="+", default=list(SOCS), help="default: all of them")
    parser.add_argument("--kernels", nargs="+", default=[], help="default: every *_kernel.cpp")
    parser.add_argument("--cxx", default="g++", help="host compiler (default: g++)")
    parser.add_argument(
        "--host", action="store_true", help="also check the CANN host code against ACL's headers"
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parse(sys.argv[1:] if argv is None else argv)
    try:
        unknown = [s for s in args.soc if s not in SOCS]
        if unknown:
            raise UsageError(f"--soc: unknown SoC {unknown[0]}; choose from {' '.join(SOCS)}")
        compiler = shutil.which(args.cxx)
        if compiler is None:
            raise UsageError(f"--cxx: {args.cxx} not found; install g++ or name a C++17 compiler")
        toolkit = find_toolkit(args.cann)
        host_headers = find_host_headers(toolkit) if args.host else None
        kernels = discover_kernels(args.kernels)
    except UsageError as error:
        print(f"ascend_check: {error}", file=sys.stderr)
        return 2

    socs = [SOCS[s] for s in args.soc]
    with tempfile.TemporaryDirectory(prefix="kiln-ascend-check-") as shim:
        shim_dir = Path(shim)
        (shim_dir / SHIM_FILE).parent.mkdir(parents=True)
        (shim_dir / SHIM_FILE).write_text(SHIM_TEXT, encoding="utf-8")
        with ThreadPoolExecutor(PARALLEL_COMPILES) as pool:
            jobs = [
                pool.submit(check, compiler, toolkit, shim_dir, k, s) for k in kernels for s in socs
            ]
            if host_headers is not None:
                jobs += [pool.submit(check_host, compiler, host_headers, h) for h in HOST_SOURCES]
            results = [job.result() for job in jobs]

    for result in results:
        status = "FAIL" if result.errors else "ok  "
        print(f"{status} {result.label:36} {result.target}")
        for line in result.errors[:ERROR_LINES_SHOWN]:
            print(f"       {line.replace(str(REPO_ROOT) + '/', '')}")
    passed = sum(not r.errors for r in results)
    hosts = sum(r.target == "host" for r in results)
    kind = "kernel x SoC" + (" and host" if hosts else "")
    print(f"{passed} of {len(results)} {kind} checks pass")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
