"""Why an operator a model needs is missing from a Kiln library, and the exact fix.

Inputs: the library's manifest (``manifest.py``: what it registers), what is needed (``needs.py``:
op names with optional kernel keys), the operator YAMLs (where kernels exist but were not
selected) and optionally the kernel symbols of the built libraries (``symbols.py``: kernels that
are declared but never defined).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kiln.codegen.api.signature import signature_of
from kiln.codegen.diagnostics.manifest import Manifest, ManifestKernel
from kiln.codegen.diagnostics.needs import Need
from kiln.codegen.diagnostics.symbols import defines, names_function
from kiln.codegen.model.entries import YamlFile
from kiln.codegen.model.kernel_keys import DTYPE_NAMES
from kiln.codegen.model.op_names import qualified
from kiln.codegen.model.parse import closest
from kiln.codegen.model.schemas import AtenSchemas
from kiln.codegen.selective_build.kernel_sources import PORTABLE_NAMESPACE, portable_source


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
    "unregistered_delegate": "the program calls a delegate backend Kiln does not run itself",
}


def describe_key(key: str) -> str:
    """``v1/6;0,1|6;0,1`` -> ``Float[0,1], Float[0,1]``."""
    if key == "default" or "/" not in key:
        return key
    parts = []
    for entry in key.split("/", 1)[1].split("|"):
        dtype, _, order = entry.partition(";")
        parts.append(f"{DTYPE_NAMES.get(int(dtype), dtype)}[{order}]")
    return ", ".join(parts)


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

    def check_all(self, needs: list[Need]) -> list[Finding]:
        """The findings of every distinct need, in the order given."""
        findings: list[Finding] = []
        seen: set[tuple[str, tuple[str, ...]]] = set()
        for need in needs:
            if (need.name, need.keys) in seen:
                continue
            seen.add((need.name, need.keys))
            findings += self.check(need)
        return findings

    # ---- per need ----

    def check(self, need: Need) -> list[Finding]:
        findings = self._check(need)
        if not need.delegate:
            return findings
        from kiln.codegen.diagnostics.delegates import in_delegate

        return [in_delegate(f, need, self.manifest.library) for f in findings]

    def _check(self, need: Need) -> list[Finding]:
        name = qualified(need.name)
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
            if defines(self.kernel_symbols, kernel.cpp_function):
                continue
            function = kernel.cpp_function.rsplit("::", 1)[1]
            elsewhere = sorted(
                {s.split("(")[0] for s in self.kernel_symbols if names_function(s, function)}
            )
            hint = (
                f"a function {function} is defined as {', '.join(elsewhere)}; " if elsewhere else ""
            )
            if kernel.cpp_function.startswith(f"{PORTABLE_NAMESPACE}::"):
                hint += f"Kiln's portable kernels of {name} live in {portable_source(name)}; "
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
    from kiln.codegen.selective_build.program_ops import out_variants

    out = out_variants().get(short)
    return None if out is None or out == short else f"aten::{out}"


def summarize(findings: list[Finding]) -> dict[str, int]:
    return {
        "missing": sum(f.severity == "missing" for f in findings),
        "warnings": sum(f.severity == "warning" for f in findings),
    }
