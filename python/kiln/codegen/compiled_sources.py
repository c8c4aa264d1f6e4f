"""python -m kiln.codegen.compiled_sources: the portable kernel sources an operator library
compiles.

CMake runs it at configure time for a library built from a selection, so the library compiles
only what it selected: the op_<name>.cpp of each selected operator and the shared util/ sources
those reach through their #include graph (``selective_build/kernel_sources.py``). A selection
of every operator lists every source. The result, one path per line, goes to --output (rewritten
only when it changes).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import yaml

from kiln.codegen.errors import CliParser, UserError
from kiln.codegen.output import write_if_changed
from kiln.codegen.selective_build.kernel_sources import (
    SourcePlan,
    needed_sources,
    read_source_list,
)

PROG = "python -m kiln.codegen.compiled_sources"


def _parser() -> argparse.ArgumentParser:
    parser = CliParser(prog=PROG, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--selected-ops", metavar="F", required=True, help="a selection file")
    parser.add_argument(
        "--sources", metavar="F", required=True, help="every portable kernel source, one a line"
    )
    parser.add_argument(
        "--kernel-dir", metavar="D", required=True, help="the directory the sources lie under"
    )
    parser.add_argument(
        "--include-dir",
        metavar="D",
        action="append",
        default=[],
        help='where the kernels\' #include "kernels/portable/..." headers are found; repeatable',
    )
    parser.add_argument("--output", metavar="F", required=True, help="the sources to compile")
    parser.add_argument(
        "--depfile", metavar="F", help="also write the files the answer was read from, one a line"
    )
    return parser


def _selected_operators(path: str) -> tuple[bool, list[str]]:
    """(every operator selected, the names of the operators) of a selection file."""
    with open(path, encoding="utf-8") as stream:
        document = yaml.safe_load(stream) or {}
    if not isinstance(document, dict):
        raise UserError(
            path, None, "not a selected_operators.yaml", "write it with kiln.codegen.oplist"
        )
    operators = document.get("operators") or {}
    return bool(document.get("include_all_operators")), [str(name) for name in operators]


def compiled_sources(options: argparse.Namespace) -> SourcePlan:
    listed = read_source_list(options.sources)
    include_all, names = _selected_operators(options.selected_ops)
    if include_all:
        return SourcePlan(tuple(listed), ())
    return needed_sources(names, listed, options.kernel_dir, options.include_dir)


def _write_lines(path: str, lines: Sequence[str]) -> None:
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    write_if_changed(path, "".join(f"{line}\n" for line in lines))


def main(argv: Sequence[str] | None = None) -> int:
    try:
        options = _parser().parse_args(argv)
        plan = compiled_sources(options)
        _write_lines(options.output, plan.sources)
        if options.depfile is not None:
            _write_lines(options.depfile, plan.read)
    except UserError as error:
        print(error.render(), file=sys.stderr)
        return 1
    except (OSError, yaml.YAMLError) as error:
        where = getattr(error, "filename", None) or PROG
        print(f"{where}: {error} — check the path and the file", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
