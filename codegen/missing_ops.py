"""``python -m codegen.missing_ops``: runs ``python -m kiln.codegen.missing_ops``."""

import runpy

if __name__ == "__main__":
    runpy.run_module("kiln.codegen.missing_ops", run_name="__main__", alter_sys=True)
