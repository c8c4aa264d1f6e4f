# Paged attention decode (kiln::paged_attention.out): Ascend C vector kernel (device) and host
# wrapper.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_paged_attention/paged_attention_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_paged_attention/paged_attention_host.cpp
  op_paged_attention/paged_attention_tiling.cpp)
