"""Entry point of ``python -m codegen``."""

import sys

from codegen.cli import main

sys.exit(main())
