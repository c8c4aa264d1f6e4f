"""``python -m codegen.oplist``: runs ``python -m kiln.codegen.oplist``."""

import runpy

if __name__ == "__main__":
    runpy.run_module("kiln.codegen.oplist", run_name="__main__", alter_sys=True)
