"""Selective build: which operators and dtypes a library keeps, and what it compiles for them.

``selector`` (the selection: selected_operators.yaml, --root-ops, --include-all-ops, held in
torchgen's SelectiveBuilder), ``selection_file`` (the selected_operators.yaml kiln.codegen.oplist
writes, from the union of its sources), ``program_ops`` (the ops and kernel keys a saved
torch.export program needs), ``kernel_sources`` (which portable kernel source a dtype-selective
library compiles, for a resolved ``kiln.codegen.library.Library``). Builds on
``kiln.codegen.model``.
"""
