# Shape, copy, creation and indexing ops.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_arange.cpp
  cpu/op_cat.cpp
  cpu/op_clone.cpp
  cpu/op_expand_copy.cpp
  cpu/op_flip.cpp
  cpu/op_full.cpp
  cpu/op_permute_copy.cpp
  cpu/op_slice_copy.cpp
  cpu/op_split_copy.cpp
  cpu/op_squeeze_copy.cpp
  cpu/op_to_copy.cpp
  cpu/op_tril.cpp
  cpu/op_view_copy.cpp
  cpu/util/copy.cpp
)
