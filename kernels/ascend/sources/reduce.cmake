# Last-dim reductions (sum, mean, amax): Ascend C kernel (device) and host wrappers.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_reduce/reduce_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_reduce/reduce_host.cpp op_reduce/reduce_tiling.cpp)
