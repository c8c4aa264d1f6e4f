"""python -m kiln.codegen.oplist: writes a selected_operators.yaml from the union of its sources.

Sources: --root-ops (comma list), --ops-yaml (functions/custom-ops YAML, or a
selected_operators.yaml such as an earlier run wrote; repeatable), --model (a .pte program, or a
program saved with torch.export.save; repeatable; ExecuTorch's gen_oplist calls it
--model_file_path) and --include-all-ops. The union itself is
python/kiln/codegen/selective_build/selection_file.py.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import yaml

from kiln.codegen.errors import CliParser, UserError
from kiln.codegen.output import write_if_changed
from kiln.codegen.selective_build.selection_file import selection

PROG = "python -m kiln.codegen.oplist"


def _parser() -> argparse.ArgumentParser:
    parser = CliParser(prog=PROG, description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--output", metavar="F", required=True, help="selected_operators.yaml")
    parser.add_argument("--root-ops", metavar="A,B", help="e.g. aten::add.out,mul.out")
    parser.add_argument(
        "--ops-yaml",
        metavar="F",
        action="append",
        default=[],
        help="select every op in F (functions/custom-ops YAML), or F's selection "
        "(a selected_operators.yaml, dtypes included)",
    )
    parser.add_argument(
        "--model",
        "--model_file_path",
        metavar="P",
        action="append",
        default=[],
        help="a .pte program or a torch.export.save program: its ops, with their dtypes",
    )
    parser.add_argument("--include-all-ops", action="store_true", help="select every operator")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        options = _parser().parse_args(argv)
        given = (
            options.root_ops is not None,
            options.ops_yaml,
            options.include_all_ops,
            options.model,
        )
        if not any(given):
            raise UserError(
                PROG,
                None,
                "no operator source given",
                "pass --root-ops, --ops-yaml, --model or --include-all-ops",
            )
        content = selection(
            options.root_ops, options.ops_yaml, options.include_all_ops, options.model
        )
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
