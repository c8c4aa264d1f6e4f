# Reductions, softmax and normalisation.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op__log_softmax.cpp
  cpu/op__native_batch_norm_legit_no_training.cpp
  cpu/op__softmax.cpp
  cpu/op_all.cpp
  cpu/op_amax.cpp
  cpu/op_amin.cpp
  cpu/op_any.cpp
  cpu/op_argmax.cpp
  cpu/op_argmin.cpp
  cpu/op_cumsum.cpp
  cpu/op_logsumexp.cpp
  cpu/op_max.cpp
  cpu/op_mean.cpp
  cpu/op_min.cpp
  cpu/op_native_group_norm.cpp
  cpu/op_native_layer_norm.cpp
  cpu/op_prod.cpp
  cpu/op_std.cpp
  cpu/op_sum.cpp
  cpu/op_var.cpp
  cpu/util/normalization.cpp
  cpu/util/reduce_accumulate.cpp
  cpu/util/reduce_select.cpp
  cpu/util/select_kernels.cpp
  cpu/util/variance.cpp
)
