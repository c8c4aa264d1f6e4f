"""kiln-export: a saved torch.export program (torch.export.save) -> a .pte program.

    kiln-export model.pt2 model.pte [--data model.ptd]

With --data, the weights go to that data file (.ptd) instead of the program.

Problems with the input (a missing or unreadable file, a program kiln.export cannot express) are
one line on stderr and exit code 1, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import sys
import warnings
from collections.abc import Iterator, Sequence

from kiln._errors import ExportError
from kiln.codegen.errors import CliParser, UserError

PROG = "kiln-export"


@contextlib.contextmanager
def _quiet_torch() -> Iterator[None]:
    """torch's own log lines and deprecation warnings are noise for this tool's user: its
    loader logs a traceback for a file it cannot read, which the tool reports in one line."""
    logger = logging.getLogger("torch.export")
    level = logger.level
    logger.setLevel(logging.CRITICAL)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            yield
    finally:
        logger.setLevel(level)


def _parser() -> argparse.ArgumentParser:
    parser = CliParser(prog=PROG, description=__doc__.split("\n\n")[0])
    parser.add_argument("program", help="a program saved with torch.export.save (.pt2)")
    parser.add_argument("output", help="the .pte file to write")
    parser.add_argument(
        "--data", metavar="FILE.ptd", help="write the weights to this data file, not the program"
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        options = _parser().parse_args(argv)
        import torch

        from kiln._export.pipeline import export

        if not os.path.isfile(options.program):
            raise UserError(
                options.program, None, "no such file", "pass a program saved by torch.export.save"
            )
        try:
            with _quiet_torch():
                program = torch.export.load(options.program)
        except Exception as error:  # torch raises many types for a file that is not a program
            raise UserError(
                options.program,
                None,
                f"cannot load it as a torch.export program ({type(error).__name__}: {error})",
                "pass a file written by torch.export.save(torch.export.export(model, inputs), "
                "path)",
            ) from None
        with _quiet_torch():
            data = export(program, path=options.output, data_path=options.data)
    except UserError as error:
        print(error.render(), file=sys.stderr)
        return 1
    except ExportError as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1
    except OSError as error:
        print(
            f"{error.filename or PROG}: {error.strerror or error} — check the path", file=sys.stderr
        )
        return 1
    print(f"wrote {options.output} ({len(data)} bytes)")
    if options.data is not None:
        print(f"wrote {options.data} ({os.path.getsize(options.data)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
