# The paged KV cache's writes (kiln::reshape_and_cache): Ascend C kernel (device) and host
# wrapper. Shares the row split of the row kernels.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_kv_cache/kv_cache_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_kv_cache/kv_cache_host.cpp op_kv_cache/kv_cache_tiling.cpp)
