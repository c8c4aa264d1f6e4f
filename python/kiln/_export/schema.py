"""The .pte format's object API for the exporter: flatc's Python
(kiln/codegen/pte/program_generated.py) carries no type annotations, so the exporter sees it as
``Any``."""

from typing import Any

from kiln.codegen.pte import program_generated

pte: Any = program_generated
