# RMS norm and the fused residual add + RMS norm over the last dim (kiln::rms_norm,
# kiln::fused_add_rms_norm): Ascend C kernel (device) and host wrappers.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_rms_norm/rms_norm_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_rms_norm/rms_norm_host.cpp op_rms_norm/rms_norm_tiling.cpp)
