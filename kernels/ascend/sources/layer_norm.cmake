# Layer norm over the last dim: Ascend C kernel (device) and host wrapper.
# Shares the row split and row math headers of op_reduce.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_layer_norm/layer_norm_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_layer_norm/layer_norm_host.cpp
  op_layer_norm/layer_norm_tiling.cpp)
