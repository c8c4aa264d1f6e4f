"""Pure functions from operator schemas to C++ types, names and unboxing code (no I/O).

``types`` (schema type -> C++ parameter type, ArgKind, unboxing), ``signature`` (a kernel's C++
signature), ``contract`` (the out-variant contract), ``names`` (C++ names in generated code),
``aten`` (ATen mode's libtorch adapters). It may import ``kiln.codegen.model``, never the reverse.
"""
