# Weight-only int8 linear (kiln::weight_int8_linear.out): Ascend C vector kernel (device) and host
# wrapper.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_weight_int8_linear/weight_int8_linear_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_weight_int8_linear/weight_int8_linear_host.cpp
  op_weight_int8_linear/weight_int8_linear_tiling.cpp)
