"""python -m codegen.oplist: writes a selected_operators.yaml from the union of its sources.

Sources: --root-ops (comma list), --ops-yaml (functions/custom-ops YAML, repeatable) and
--include-all-ops. The output is the format torchgen.selective_build.SelectiveBuilder reads.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

import yaml

from codegen.errors import UserError
from codegen.model import YamlFile
from codegen.output import write_if_changed
from codegen.schemas import AtenSchemas
from codegen.selector import parse_root_ops

PROG = "python -m codegen.oplist"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UserError(PROG, None, message, f"see '{PROG} --help'")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--output", metavar="F", required=True, help="selected_operators.yaml")
    parser.add_argument("--root-ops", metavar="A,B", help="e.g. aten::add.out,mul.out")
    parser.add_argument(
        "--ops-yaml", metavar="F", action="append", default=[], help="select every op in F"
    )
    parser.add_argument("--include-all-ops", action="store_true", help="select every operator")
    return parser


def _operator_entry(source: str) -> dict[str, object]:
    return {
        "is_root_operator": True,
        "is_used_for_training": False,
        "include_all_overloads": False,
        "debug_info": [source],
    }


def selection(
    root_ops: str | None, ops_yamls: Sequence[str], include_all: bool
) -> dict[str, object]:
    """The selected_operators.yaml content for the union of the sources."""
    if root_ops is None and not ops_yamls and not include_all:
        raise UserError(
            PROG,
            None,
            "no operator source given",
            "pass --root-ops, --ops-yaml or --include-all-ops",
        )
    operators: dict[str, dict[str, object]] = {}
    for name in parse_root_ops(root_ops or ""):
        operators.setdefault(name, _operator_entry("--root-ops"))
    schemas = AtenSchemas()
    for path in ops_yamls:
        for op in YamlFile.from_yaml(path, schemas).ops:
            operators.setdefault(op.name, _operator_entry(f"{path}:{op.source.line}"))
    return {
        "build_features": [],
        "custom_classes": [],
        "include_all_non_op_selectives": False,
        "include_all_operators": include_all,
        "kernel_metadata": {},
        "et_kernel_metadata": {},
        "operators": dict(sorted(operators.items())),
    }


def main(argv: Sequence[str] | None = None) -> int:
    try:
        options = _parser().parse_args(argv)
        content = selection(options.root_ops, options.ops_yaml, options.include_all_ops)
        directory = os.path.dirname(options.output)
        if directory:
            os.makedirs(directory, exist_ok=True)
        write_if_changed(options.output, yaml.safe_dump(content, sort_keys=False))
    except UserError as error:
        print(error.render(), file=sys.stderr)
        return 1
    except OSError as error:
        print(
            f"{error.filename or PROG}: {error.strerror or error} — check the path", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
