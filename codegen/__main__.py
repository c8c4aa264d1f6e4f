"""``python -m codegen``: runs ``python -m kiln.codegen``."""

import runpy

runpy.run_module("kiln.codegen", run_name="__main__", alter_sys=True)
