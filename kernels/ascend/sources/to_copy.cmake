# Dtype-converting copy (_to_copy): Ascend C kernel (device) and host wrapper.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_to_copy/to_copy_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_to_copy/to_copy_host.cpp op_to_copy/to_copy_tiling.cpp)
