# The gated activations silu_and_mul and gelu_and_mul (SwiGLU, GeGLU): Ascend C kernel (device)
# and host wrappers. Shares the gelu formulas of op_unary (unary_math.h).
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_gated/gated_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_gated/gated_host.cpp op_gated/gated_tiling.cpp)
