# Indexing, scatter/gather and sorting ops.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_embedding.cpp
  cpu/op_gather.cpp
  cpu/op_index.cpp
  cpu/op_index_put.cpp
  cpu/op_index_select.cpp
  cpu/op_masked_fill.cpp
  cpu/op_masked_scatter.cpp
  cpu/op_masked_select.cpp
  cpu/op_narrow_copy.cpp
  cpu/op_nonzero.cpp
  cpu/op_repeat_interleave.cpp
  cpu/op_scatter.cpp
  cpu/op_scatter_add.cpp
  cpu/op_sort.cpp
  cpu/op_topk.cpp
  cpu/util/advanced_index.cpp
  cpu/util/index_util.cpp
  cpu/util/masked.cpp
  cpu/util/scatter.cpp
)
