# 2-d convolution: the im2col Ascend C kernel (device) and the host wrapper, which runs the
# product on the matmul family's cube kernel (op_matmul/matmul_run.h).
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_conv/conv_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_conv/conv_host.cpp op_conv/conv_tiling.cpp)
