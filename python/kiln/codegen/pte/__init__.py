"""The .pte program format (ExecuTorch's FlatBuffers schema, file identifier "ET12") in Python.

``program_generated`` is flatc's object API for ``runtime/executor/schema/program.fbs``, checked
in so that the codegen reads programs without a build step (``tools/gen_pte_schema.sh``
regenerates it; ``tests/test_pte_schema.py`` checks it is current). ``header`` checks a file's
framing (identifier, extended header, sizes); ``reader`` gives the operators and kernel keys a
program needs, for selection and diagnostics.
"""
