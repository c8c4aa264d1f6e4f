# Binary elementwise ops (add, sub, mul, div): Ascend C kernel (device) and host wrappers.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_binary/binary_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_binary/binary_host.cpp op_binary/binary_tiling.cpp)
