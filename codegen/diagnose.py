"""Why an operator a model needs is missing from a Kiln library, and the exact fix.

Inputs: the library's manifest (what it registers), what is needed (op names with optional kernel
keys), the operator YAMLs (where kernels exist but were not selected) and optionally the built
kernel libraries (to find kernel symbols that are declared but never defined).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegen.api.signature import signature_of
from codegen.errors import UserError
from codegen.model.entries import YamlFile
from codegen.model.kernel_keys import DTYPE_NAMES
from codegen.model.parse import closest
from codegen.model.schemas import AtenSchemas


@dataclass(frozen=True)
class Need:
    """An operator something needs; ``keys`` empty means any dtype."""

    name: str
    keys: tuple[str, ...] = ()
    source: str = "--ops"


@dataclass(frozen=True)
class Finding:
    op: str
    cause: str  # see CAUSES
    severity: str  # "missing" or "warning"
    message: str
    fix: tuple[str, ...]
    key: str | None = None
    backends_searched: tuple[str, ...] = ()
    source: str = ""


CAUSES = {
    "not_selected": "a kernel exists but the op was not selected",
    "no_kernel": "no YAML declares a kernel for the op",
    "missing_dtype": "kernels exist but none for the dtype / dim order used",
    "functional_name": "a functional op name; Kiln runs out variants",
    "unknown_name": "not an operator Kiln or ATen knows",
    "undefined_symbol": "the kernel is declared but its symbol is not defined",
    "backend_fallback": "no kernel for the requested backend; runs on another (a warning)",
}


# What --embed-manifest puts before the JSON in a built binary.
EMBEDDED_MARKER = b"KILN_MANIFEST_V1\n"


@dataclass(frozen=True)
class ManifestKernel:
    backend: str
    key: str
    kernel_name: str
    cpp_function: str
    source: str


@dataclass(frozen=True)
class Manifest:
    path: str
    library: str
    operators: dict[str, tuple[ManifestKernel, ...]]
    yaml_paths: tuple[str, ...]

    @classmethod
    def load(cls, path: str) -> Manifest:
        """A manifest JSON file, or a built library, object or program that embeds manifests
        (codegen --embed-manifest); several embedded libraries are read as one."""
        try:
            data = Path(path).read_bytes()
        except OSError as error:
            raise UserError(
                path, None, f"cannot read it ({error.strerror})", "check the path"
            ) from None
        if data.lstrip()[:1] == b"{":
            return cls._from_documents(path, [data])
        documents = [chunk.split(b"\0", 1)[0] for chunk in data.split(EMBEDDED_MARKER)[1:]]
        if not documents:
            raise UserError(
                path,
                None,
                "not a manifest and no embedded manifest found in it",
                "pass the <lib>.manifest.json the codegen wrote, or build the library with "
                "--embed-manifest (CMake: generate_bindings_for_kernels(... EMBED_MANIFEST))",
            )
        return cls._from_documents(path, documents)

    @classmethod
    def _from_documents(cls, path: str, documents: list[bytes]) -> Manifest:
        try:
            operators: dict[str, tuple[ManifestKernel, ...]] = {}
            libraries: list[str] = []
            yamls: list[str] = []
            for document in documents:
                data = json.loads(document)
                libraries.append(data["library"])
                for op in data["operators"]:
                    operators[op["name"]] = operators.get(op["name"], ()) + tuple(
                        ManifestKernel(
                            k["backend"], k["key"], k["kernel_name"], k["cpp_function"], k["source"]
                        )
                        for k in op["kernels"]
                    )
                sources = data.get("sources", {})
                yamls += [
                    p
                    for p in (sources.get("functions_yaml"), sources.get("custom_ops_yaml"))
                    if p and p not in yamls
                ]
            return cls(path, "+".join(libraries), operators, tuple(yamls))
        except (ValueError, KeyError, TypeError) as error:
            raise UserError(
                path,
                None,
                f"not a Kiln library manifest ({type(error).__name__}: {error})",
                "pass the <lib>.manifest.json that python -m codegen wrote for the library",
            ) from None


def describe_key(key: str) -> str:
    """``v1/6;0,1|6;0,1`` -> ``Float[0,1], Float[0,1]``."""
    if key == "default" or "/" not in key:
        return key
    parts = []
    for entry in key.split("/", 1)[1].split("|"):
        dtype, _, order = entry.partition(";")
        parts.append(f"{DTYPE_NAMES.get(int(dtype), dtype)}[{order}]")
    return ", ".join(parts)


def _qualified(name: str) -> str:
    return name if "::" in name else f"aten::{name}"


class Diagnosis:
    """Answers, for each need, whether the library serves it on ``backend`` and if not why."""

    def __init__(
        self,
        manifest: Manifest,
        yamls: list[YamlFile],
        backend: str,
        kernel_symbols: set[str] | None,
    ) -> None:
        self.manifest = manifest
        self.backend = backend
        self.kernel_symbols = kernel_symbols
        self.declared = {op.name: op for file in yamls for op in file.ops}
        self.yaml_paths = [file.path for file in yamls]
        self.schemas = AtenSchemas()

    # ---- per need ----

    def check(self, need: Need) -> list[Finding]:
        name = _qualified(need.name)
        kernels = self.manifest.operators.get(name)
        if kernels is None:
            return [self._absent(name, need)]
        findings: list[Finding] = []
        serving = [k for k in kernels if k.backend == self.backend]
        if not serving:
            serving = list(kernels)
            others = sorted({k.backend for k in kernels})
            findings.append(
                Finding(
                    name,
                    "backend_fallback",
                    "warning",
                    f"{name} has no {self.backend} kernel; it runs on {', '.join(others)} "
                    "(counted as a fallback at run time)",
                    (
                        f"to run it on {self.backend}, add a kernel with 'backend: {self.backend}' "
                        f"to the op's YAML entry",
                    ),
                    backends_searched=(self.backend,),
                    source=need.source,
                )
            )
        findings += self._dtype_findings(name, need, serving)
        findings += self._symbol_findings(name, serving, need)
        return findings

    def _dtype_findings(
        self, name: str, need: Need, kernels: list[ManifestKernel]
    ) -> list[Finding]:
        if any(k.key == "default" for k in kernels):
            return []
        have = sorted({k.key for k in kernels})
        findings = []
        for key in need.keys:
            if key in have:
                continue
            findings.append(
                Finding(
                    name,
                    "missing_dtype",
                    "missing",
                    f"{name} has kernels only for {'; '.join(describe_key(k) for k in have)}, "
                    f"not for {describe_key(key)} (kernel key {key})",
                    (
                        "add a default kernel ('arg_meta: null') to the op's YAML entry, or add "
                        "the dtype to its type_alias so a kernel is generated for this key",
                    ),
                    key=key,
                    backends_searched=tuple(sorted({k.backend for k in kernels})),
                    source=need.source,
                )
            )
        return findings

    def _symbol_findings(
        self, name: str, kernels: list[ManifestKernel], need: Need
    ) -> list[Finding]:
        if self.kernel_symbols is None:
            return []
        findings = []
        for kernel in kernels:
            if _defines(self.kernel_symbols, kernel.cpp_function):
                continue
            function = kernel.cpp_function.rsplit("::", 1)[1]
            elsewhere = sorted(
                {s.split("(")[0] for s in self.kernel_symbols if _names(s, function)}
            )
            hint = (
                f"a function {function} is defined as {', '.join(elsewhere)}; " if elsewhere else ""
            )
            findings.append(
                Finding(
                    name,
                    "undefined_symbol",
                    "missing",
                    f"{name}'s kernel {kernel.cpp_function} (kernel_name {kernel.kernel_name}, "
                    f"{kernel.source}) is not defined in the given kernel libraries",
                    (
                        f"{hint}define it inside namespace "
                        f"{kernel.cpp_function.rsplit('::', 1)[0]}: the codegen binds "
                        f"kernel_name {kernel.kernel_name} to {kernel.cpp_function} (it appends "
                        "'::native'), and link the library that defines it",
                    ),
                    backends_searched=(kernel.backend,),
                    source=need.source,
                )
            )
        return findings

    def _absent(self, name: str, need: Need) -> Finding:
        library = self.manifest.library
        declared = self.declared.get(name)
        if declared is not None and declared.kernels:
            where = str(declared.source)
            return Finding(
                name,
                "not_selected",
                "missing",
                f"{name} has a kernel ({where}) but library {library} did not select it",
                (
                    f'CMake: add "{name}" to gen_selected_ops(LIB_NAME {library} ROOT_OPS ...)',
                    "selection YAML: under 'operators:' add "
                    f"'{name}: {{is_root_operator: true, is_used_for_training: false, "
                    "include_all_overloads: false}'",
                ),
                backends_searched=(self.backend,),
                source=need.source,
            )
        out_name = _out_variant_of(name)
        if out_name is not None:
            return Finding(
                name,
                "functional_name",
                "missing",
                f"{name} is a functional op; Kiln libraries hold out variants",
                (f"ask for {out_name} instead",),
                source=need.source,
            )
        schema = self._schema(name)
        if schema is None:
            known = list(self.manifest.operators) + list(self.declared)
            known += [f"aten::{n}" for n in self.schemas.index.out_names]
            close = closest(name, sorted(set(known)))
            return Finding(
                name,
                "unknown_name",
                "missing",
                f"{name} is not an operator of library {library}, its YAMLs or ATen",
                (f"did you mean {' or '.join(close)}?" if close else "check the operator name",),
                source=need.source,
            )
        return Finding(
            name,
            "no_kernel",
            "missing",
            f"no YAML declares a kernel for {name} "
            f"(searched {', '.join(self.yaml_paths) or 'no YAML'})",
            _new_kernel_fix(name, schema),
            backends_searched=(self.backend,),
            source=need.source,
        )

    def _schema(self, name: str) -> Any | None:
        from torchgen.model import FunctionSchema

        if name in self.declared:
            return self.declared[name].schema
        namespace, short = name.split("::", 1)
        text = self.schemas.index.lookup(short) if namespace == "aten" else None
        return None if text is None else FunctionSchema.parse(text)


def _new_kernel_fix(name: str, schema: Any) -> tuple[str, ...]:
    signature = signature_of(schema)
    base, overload = str(schema.name.name), schema.name.overload_name
    function = base if not overload else f"{base}_{overload}".lower()
    function = function.replace("_out_out", "_out")
    namespace, short = name.split("::", 1)
    entry = f"- op: {short}" if namespace == "aten" else f"- func: {name}"
    params = ",\n    ".join(signature.parameter_list())
    return (
        "add to functions.yaml (or custom_ops.yaml):\n"
        f"{entry}\n  kernels:\n    - arg_meta: null\n      kernel_name: my_kernels::{function}",
        "and implement (the codegen appends '::native' to the kernel_name's namespace):\n"
        f"namespace my_kernels::native {{\n{signature.returns} {function}(\n    {params});\n}}",
    )


def _out_variant_of(name: str) -> str | None:
    namespace, short = name.split("::", 1)
    if namespace != "aten":
        return None
    from codegen.selective_build.program_ops import out_variants

    out = out_variants().get(short)
    return None if out is None or out == short else f"aten::{out}"


def _names(symbol: str, function: str) -> bool:
    head = symbol.split("(")[0]
    return head == function or head.endswith(f"::{function}")


def _defines(symbols: set[str], cpp_function: str) -> bool:
    return any(s.split("(")[0] == cpp_function for s in symbols)


def defined_symbols(libraries: list[str]) -> set[str]:
    """Demangled names of the functions defined in the given archives, objects or binaries."""
    symbols: set[str] = set()
    for library in libraries:
        if not Path(library).exists():
            raise UserError(
                library, None, "no such file", "pass built kernel libraries (.a/.so/.o)"
            )
        try:
            listing = subprocess.run(
                ["nm", "-C", "--defined-only", library], capture_output=True, text=True, check=False
            )
        except FileNotFoundError:
            raise UserError(
                "--kernel-libs", None, "nm is not installed", "install binutils"
            ) from None
        if listing.returncode != 0:
            raise UserError(
                library,
                None,
                f"nm cannot read it: {listing.stderr.strip()}",
                "pass a built library",
            )
        for line in listing.stdout.splitlines():
            parts = line.split(" ", 2)
            if len(parts) == 3 and parts[1] in ("T", "t", "W", "w"):
                symbols.add(parts[2])
    return symbols


def summarize(findings: list[Finding]) -> dict[str, int]:
    return {
        "missing": sum(f.severity == "missing" for f in findings),
        "warnings": sum(f.severity == "warning" for f in findings),
    }


def needs_from_selection(path: str) -> list[Need]:
    """Ops (and their kernel keys) of a selected_operators.yaml."""
    from codegen.selective_build.selector import load_selection

    selection = load_selection(path, None, False)
    needs = []
    for name in selection.builder.operators:
        metadata = selection.builder.et_kernel_metadata.get(name, [])
        keys = tuple(k for k in metadata if k != "default")
        needs.append(Need(name, keys, path))
    return needs


def needs_from_model(path: str) -> list[Need]:
    from codegen.selective_build.program_ops import program_ops

    found = program_ops(path)
    needs = [
        Need(name, tuple(sorted(k.native_string() for k in keys)), path)
        for name, keys in sorted(found.keys.items())
    ]
    needs += [Need(name, (), path) for name in sorted(found.unmapped)]
    return needs


__all__ = [
    "CAUSES",
    "Diagnosis",
    "Finding",
    "Manifest",
    "Need",
    "defined_symbols",
    "describe_key",
    "needs_from_model",
    "needs_from_selection",
    "summarize",
]
