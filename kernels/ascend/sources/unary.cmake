# Unary elementwise ops: Ascend C kernel (device) and host wrappers.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_unary/unary_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_unary/unary_host.cpp op_unary/unary_tiling.cpp)
