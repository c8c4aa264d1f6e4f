"""python -m kiln.codegen.missing_ops (kiln-missing-ops): what a library lacks, why, and the fix.

Exit codes: 0 nothing missing (warnings allowed), 1 something missing, 2 bad usage or unreadable
input. --json prints a stable document for tools; otherwise a table for people.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from kiln.codegen.diagnostics.delegates import unregistered_delegate
from kiln.codegen.diagnostics.diagnosis import Diagnosis, Finding, summarize
from kiln.codegen.diagnostics.manifest import Manifest
from kiln.codegen.diagnostics.needs import (
    DelegateNeed,
    Need,
    needs_from_model,
    needs_from_selection,
)
from kiln.codegen.diagnostics.report import render_json, render_table
from kiln.codegen.diagnostics.symbols import defined_symbols
from kiln.codegen.errors import CliParser, UserError
from kiln.codegen.model.backends import BACKENDS
from kiln.codegen.model.entries import YamlFile
from kiln.codegen.model.schemas import AtenSchemas
from kiln.codegen.selective_build.selector import parse_root_ops

PROG = "python -m kiln.codegen.missing_ops"


def _parser() -> argparse.ArgumentParser:
    parser = CliParser(prog=PROG, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--library", metavar="L", required=True, help="<lib>.manifest.json")
    parser.add_argument("--ops", metavar="A,B", help="ops needed, e.g. aten::add.out,mul.out")
    parser.add_argument(
        "--program",
        "--model",
        dest="model",
        metavar="P",
        action="append",
        default=[],
        help="a .pte program or a torch.export.save program",
    )
    parser.add_argument(
        "--selected-ops", metavar="Y", action="append", default=[], help="selection YAML"
    )
    parser.add_argument("--backend", choices=BACKENDS, default="portable")
    parser.add_argument(
        "--functions-yaml", metavar="F", help="where to look for unselected kernels"
    )
    parser.add_argument(
        "--custom-ops-yaml",
        metavar="F",
        action="append",
        default=[],
        help="where to look for unselected kernels; may be given several times",
    )
    parser.add_argument(
        "--kernel-libs", metavar="LIB", nargs="+", help="built kernel libraries to check with nm"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    return parser


def _needs(options: argparse.Namespace) -> tuple[list[Need], list[DelegateNeed]]:
    """The operators needed, and the delegate calls to backends Kiln does not run."""
    needs: list[Need] = []
    delegates: list[DelegateNeed] = []
    if options.ops:
        needs += [Need(name, (), "--ops") for name in parse_root_ops(options.ops)]
    for path in options.selected_ops:
        needs += needs_from_selection(path)
    for path in options.model:
        found = needs_from_model(path)
        needs += found.ops
        delegates += found.delegates
    if not needs and not delegates:
        raise UserError(PROG, None, "nothing to check", "pass --ops, --program or --selected-ops")
    return needs, delegates


def _yamls(options: argparse.Namespace, manifest: Manifest) -> list[YamlFile]:
    given = [p for p in (options.functions_yaml, *options.custom_ops_yaml) if p]
    gone = [p for p in manifest.yaml_paths if not os.path.isfile(p)]
    if not given and gone:
        raise UserError(
            manifest.path,
            None,
            f"the library was generated from {', '.join(gone)}, which is no longer there, so "
            "whether an unselected operator has a kernel cannot be told",
            "pass --functions-yaml / --custom-ops-yaml with the YAML files the library was "
            "generated from",
        )
    paths = given or list(manifest.yaml_paths)
    schemas = AtenSchemas()
    return [YamlFile.from_yaml(path, schemas) for path in paths]


def diagnose(options: argparse.Namespace) -> tuple[Manifest, list[Finding]]:
    manifest = Manifest.load(options.library)
    needs, delegates = _needs(options)
    symbols = defined_symbols(options.kernel_libs) if options.kernel_libs else None
    diagnosis = Diagnosis(manifest, _yamls(options, manifest), options.backend, symbols)
    findings = [unregistered_delegate(need) for need in delegates]
    return manifest, findings + diagnosis.check_all(needs)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        options = _parser().parse_args(argv)
        manifest, findings = diagnose(options)
    except UserError as error:
        print(error.render(), file=sys.stderr)
        return 2
    render = render_json if options.json else render_table
    print(render(manifest, options.backend, findings))
    return 1 if summarize(findings)["missing"] else 0


if __name__ == "__main__":
    sys.exit(main())
