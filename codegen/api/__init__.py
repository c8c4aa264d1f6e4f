"""Pure functions from operator schemas to C++ types, names and unboxing code (no I/O)."""
