"""Entry point of ``python -m kiln.codegen``."""

import sys

from kiln.codegen.cli import main

sys.exit(main())
