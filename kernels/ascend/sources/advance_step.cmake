# vLLM's step advance for multi-step decoding (kiln::advance_step_flashattn): Ascend C kernel
# (device) and host wrapper.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_advance_step/advance_step_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_advance_step/advance_step_host.cpp
  op_advance_step/advance_step_tiling.cpp)
