"""Emitters: the text of each generated file, from a resolved Library (no parsing, no I/O)."""
