# Matmul ops (mm, bmm, addmm, linear): Ascend C cube kernel (device) and host wrappers.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_matmul/matmul_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_matmul/matmul_host.cpp op_matmul/matmul_run.cpp
     op_matmul/matmul_tiling.cpp)
