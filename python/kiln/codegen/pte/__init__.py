"""The .pte program format (ExecuTorch's FlatBuffers schema, file identifier "ET12") in Python.

``program_generated`` is flatc's object API for ``runtime/executor/schema/program.fbs``, checked
in so that the codegen reads programs without a build step, and ``data_file_generated`` the same
for ``data_file.fbs``, the .ptd data file of a program with external weights, which kiln.export
writes (``tools/gen_pte_schema.sh`` regenerates both; ``tests/test_pte_schema.py`` checks they
are current). ``header`` checks a file's framing (identifier, extended header, sizes); ``reader``
gives the operators and kernel keys a program needs, for selection and diagnostics, its delegate
calls included: ``delegates`` finds each DelegateCall's payload, ``xnnpack_payload`` decodes an
XnnpackBackend payload's graph (``xnnpack_graph_generated``, flatc's object API for
``runtime/executor/delegates/xnnpack/xnnpack_graph.fbs``, generated the same way) and
``xnnpack_ops`` says which operators Kiln's XNNPACK delegate calls for it.
"""
