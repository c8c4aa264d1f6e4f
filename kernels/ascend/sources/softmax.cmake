# Softmax and log_softmax over the last dim: Ascend C kernel (device) and host wrappers.
# Shares the row split and row math headers of op_reduce.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_softmax/softmax_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_softmax/softmax_host.cpp op_softmax/softmax_tiling.cpp)
