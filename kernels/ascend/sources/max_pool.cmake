# 2-d max pooling with indices: Ascend C kernel (device) and host wrapper.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_max_pool/max_pool_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_max_pool/max_pool_host.cpp op_max_pool/max_pool_tiling.cpp)
