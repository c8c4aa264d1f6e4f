"""Command line of the generator: python -m kiln.codegen --functions-yaml F --output-dir D ...

Every input mistake ends as one ``path:line: what is wrong — how to fix it`` line on stderr and
exit code 1; nothing is printed on success.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import yaml

from kiln.codegen.dest import files
from kiln.codegen.errors import CliParser, UserError
from kiln.codegen.library import Library, build_library
from kiln.codegen.model.backends import BACKENDS
from kiln.codegen.model.entries import YamlFile
from kiln.codegen.model.identifiers import is_identifier
from kiln.codegen.model.parse import did_you_mean
from kiln.codegen.model.schemas import AtenSchemas
from kiln.codegen.output import write_if_changed
from kiln.codegen.selective_build.selector import load_selection

PROG = "python -m kiln.codegen"


def _parser() -> argparse.ArgumentParser:
    parser = CliParser(
        prog=PROG,
        description="Generate Kiln's kernel declarations, typed API, unboxing wrappers, kernel "
        "table, dtype selection header and manifest for one operator library.",
    )
    parser.add_argument("--functions-yaml", metavar="F", help="ATen ops -> kernels (op: entries)")
    parser.add_argument(
        "--custom-ops-yaml",
        metavar="F",
        action="append",
        default=[],
        help="custom ops (func: entries); may be given several times",
    )
    parser.add_argument("--selected-ops", metavar="F", help="a selected_operators.yaml")
    parser.add_argument(
        "--root-ops", metavar="A,B", help="ops to select, e.g. aten::add.out,mul.out"
    )
    parser.add_argument(
        "--include-all-ops", action="store_true", help="select every op in the YAML files"
    )
    parser.add_argument("--output-dir", metavar="D", required=True, help="where files are written")
    parser.add_argument("--lib-name", metavar="NAME", required=True, help="a C identifier")
    parser.add_argument(
        "--backends",
        metavar="B,C",
        help=f"backends to keep ({', '.join(BACKENDS)}); default: every backend with kernels",
    )
    parser.add_argument(
        "--static-registration",
        action="store_true",
        help="also register the kernels from a static initializer",
    )
    parser.add_argument(
        "--embed-manifest",
        action="store_true",
        help=(
            "keep the manifest in the built binary, for python -m kiln.codegen.missing_ops "
            "--library"
        ),
    )
    parser.add_argument(
        "--dtype-selective-build",
        metavar="SOURCES",
        help="compile only the selected dtypes: SOURCES lists the portable kernel sources (one "
        "path per line); writes dtype_selected/<source>.cpp for the library to compile, and the "
        "unboxing refuses unselected dtypes with NotSupported",
    )
    parser.add_argument(
        "--mindspore-aot",
        action="store_true",
        help='also write MindSporeAot.cpp: one extern "C" MindSpore AOT entry point '
        '(ops.Custom(func_type="aot"), CPU) per out-variant operator',
    )
    parser.add_argument(
        "--aten-mode",
        action="store_true",
        help="ATen mode: ATen ops run libtorch's at::_ops kernels (for -DKILN_ATEN_MODE=ON "
        "builds); the YAML files become optional",
    )
    return parser


def _backends(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    names = [n.strip() for n in text.split(",") if n.strip()]
    for name in names:
        if name not in BACKENDS:
            raise UserError(
                "--backends",
                None,
                f"unknown backend '{name}'",
                f"{did_you_mean(name, BACKENDS)}backends are {', '.join(BACKENDS)}",
            )
    if not names:
        raise UserError("--backends", None, "no backend given", f"use {', '.join(BACKENDS)}")
    return tuple(b for b in BACKENDS if b in names)


def generate(options: argparse.Namespace) -> Library:
    if not is_identifier(options.lib_name):
        raise UserError(
            "--lib-name",
            None,
            f"'{options.lib_name}' is not a C identifier",
            "use letters, digits and underscores, not starting with a digit (e.g. my_ops)",
        )
    no_yaml = options.functions_yaml is None and not options.custom_ops_yaml
    if no_yaml and not options.aten_mode:
        raise UserError(
            PROG,
            None,
            "no operator YAML given",
            "pass --functions-yaml and/or --custom-ops-yaml",
        )
    if no_yaml and options.selected_ops is None and options.root_ops is None:
        raise UserError(
            "--aten-mode",
            None,
            "no operators given",
            "pass --root-ops or --selected-ops (or an operator YAML to take its operators)",
        )
    if options.mindspore_aot and options.aten_mode:
        raise UserError(
            "--mindspore-aot",
            None,
            "the MindSpore entry points view MindSpore's buffers as Kiln's lean tensors",
            "drop --mindspore-aot (or MINDSPORE_AOT) in ATen mode",
        )
    if options.dtype_selective_build is not None and options.aten_mode:
        raise UserError(
            "--dtype-selective-build",
            None,
            "dtype selection compiles Kiln's portable kernels; ATen mode runs libtorch's",
            "drop --dtype-selective-build (or DTYPE_SELECTIVE_BUILD) in ATen mode",
        )
    backends = _backends(options.backends)
    schemas = AtenSchemas()
    paths = [p for p in (options.functions_yaml, *options.custom_ops_yaml) if p is not None]
    files = [YamlFile.from_yaml(path, schemas) for path in paths]
    selection = load_selection(options.selected_ops, options.root_ops, options.include_all_ops)
    return build_library(
        options.lib_name,
        files,
        selection,
        backends,
        options.functions_yaml,
        tuple(options.custom_ops_yaml),
        schemas if options.aten_mode else None,
    )


def run(argv: Sequence[str] | None = None) -> list[str]:
    """Generates and writes; returns the files written (unchanged ones are left alone)."""
    options = _parser().parse_args(argv)
    library = generate(options)
    outputs = files.emit(
        library,
        options.static_registration,
        options.embed_manifest,
        options.dtype_selective_build,
        options.mindspore_aot,
    )
    written = []
    for name, text in outputs.items():
        path = os.path.join(options.output_dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if write_if_changed(path, text):
            written.append(path)
    return written


def main(argv: Sequence[str] | None = None) -> int:
    try:
        run(argv)
    except UserError as error:
        print(error.render(), file=sys.stderr)
        return 1
    except yaml.YAMLError as error:
        print(f"{PROG}: YAML error: {error} — fix the YAML syntax", file=sys.stderr)
        return 1
    except OSError as error:
        where = error.filename or PROG
        print(
            f"{where}: {error.strerror or error} — check the path and permissions", file=sys.stderr
        )
        return 1
    return 0
