"""Emitters: the text of each generated file, from a resolved Library (no parsing, no I/O).

One module per generated file (``native_functions``, ``functions``, ``register_kernels``,
``selected_variants``, ``manifest``, ``dtype_selected``, ``mindspore_aot``), ``cpp`` for the C++
text helpers they share, and ``files`` for all of a library's files by path.
"""
