# Rotary position embedding (kiln::rotary_embedding.out): Ascend C kernel (device) and host
# wrapper. Shares the row kernels' compute tiles (ComputeIn, ComputeOut).
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_rotary/rotary_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_rotary/rotary_host.cpp op_rotary/rotary_tiling.cpp)
