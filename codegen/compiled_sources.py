"""``python -m codegen.compiled_sources``: runs ``python -m kiln.codegen.compiled_sources``."""

import runpy

if __name__ == "__main__":
    runpy.run_module("kiln.codegen.compiled_sources", run_name="__main__", alter_sys=True)
