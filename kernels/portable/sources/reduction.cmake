# Reductions, softmax and normalisation.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_amax.cpp
  cpu/op_any.cpp
  cpu/op_argmax.cpp
  cpu/op_batch_norm.cpp
  cpu/op_cumsum.cpp
  cpu/op_group_norm.cpp
  cpu/op_layer_norm.cpp
  cpu/op_logsumexp.cpp
  cpu/op_max.cpp
  cpu/op_mean.cpp
  cpu/op_prod.cpp
  cpu/op_softmax.cpp
  cpu/op_sum.cpp
  cpu/op_var.cpp
  cpu/util/normalization.cpp
  cpu/util/reduce_accumulate.cpp
  cpu/util/reduce_select.cpp
)
