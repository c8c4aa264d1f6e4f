"""Reads what a built library registers: its <lib>.manifest.json, or the manifests embedded in a
library, object or program built with --embed-manifest."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from kiln.codegen.dest.manifest import EMBEDDED_MARKER
from kiln.codegen.errors import UserError


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
        documents = [chunk.split(b"\0", 1)[0] for chunk in data.split(EMBEDDED_MARKER.encode())[1:]]
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
                custom = sources.get("custom_ops_yaml")  # a list; one path or null before v2
                custom = custom if isinstance(custom, list) else [custom]
                yamls += [
                    p for p in (sources.get("functions_yaml"), *custom) if p and p not in yamls
                ]
            return cls(path, "+".join(libraries), operators, tuple(yamls))
        except (ValueError, KeyError, TypeError) as error:
            raise UserError(
                path,
                None,
                f"not a Kiln library manifest ({type(error).__name__}: {error})",
                "pass the <lib>.manifest.json that python -m kiln.codegen wrote for the library",
            ) from None
