# Data movement (permute, expand, select, split, cat, clone, embedding, device copies): Ascend C
# kernel (device) and host wrappers.
list(APPEND KILN_ASCEND_DEVICE_SOURCES op_move/move_kernel.cpp)
list(APPEND KILN_ASCEND_HOST_SOURCES op_move/move_host.cpp op_move/move_ops_host.cpp
  op_move/embedding_host.cpp op_move/device_copy_host.cpp op_move/move_tiling.cpp)
