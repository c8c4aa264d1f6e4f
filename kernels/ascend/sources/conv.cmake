# 2-d convolution: a host wrapper that stages im2col columns and runs the matmul family's cube
# kernel (op_matmul/matmul_run.h); it has no device source of its own.
list(APPEND KILN_ASCEND_HOST_SOURCES op_conv/conv_host.cpp)
