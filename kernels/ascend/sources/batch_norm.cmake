# Inference batch norm (per-channel affine): Ascend C kernel (device) and host wrapper.
# Shares the row split and row IO headers of op_reduce.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_batch_norm/batch_norm_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_batch_norm/batch_norm_host.cpp
  op_batch_norm/batch_norm_tiling.cpp)
