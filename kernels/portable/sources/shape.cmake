# Shape, copy, creation and indexing ops.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_clone.cpp
  cpu/op_view_copy.cpp
)
