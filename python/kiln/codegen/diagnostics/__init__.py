"""Missing-operator diagnostics behind ``python -m kiln.codegen.missing_ops``: why a library cannot
serve what a model needs, and the exact fix.

``manifest`` (reads what a built library registers), ``needs`` (what is needed: a selection or a
program), ``symbols`` (kernel functions a built library defines, via ``nm``), ``diagnosis`` (one
finding per cause, with its fix), ``report`` (JSON for tools, a table for people).
"""
