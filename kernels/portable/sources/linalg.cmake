# Linear algebra, convolution, pooling, padding and upsampling.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op__adaptive_avg_pool2d.cpp
  cpu/op__cdist_forward.cpp
  cpu/op__pdist_forward.cpp
  cpu/op__upsample_bilinear2d_aa.cpp
  cpu/op_addmm.cpp
  cpu/op_avg_pool2d.cpp
  cpu/op_baddbmm.cpp
  cpu/op_bmm.cpp
  cpu/op_constant_pad_nd.cpp
  cpu/op_convolution.cpp
  cpu/op_convolution_backward.cpp
  cpu/op_grid_sampler_2d.cpp
  cpu/op_linear.cpp
  cpu/op_max_pool2d_with_indices.cpp
  cpu/op_max_pool2d_with_indices_backward.cpp
  cpu/op_mm.cpp
  cpu/op_reflection_pad1d.cpp
  cpu/op_reflection_pad2d.cpp
  cpu/op_reflection_pad3d.cpp
  cpu/op_replication_pad1d.cpp
  cpu/op_replication_pad2d.cpp
  cpu/op_replication_pad3d.cpp
  cpu/op_upsample_bilinear2d.cpp
  cpu/op_upsample_nearest2d.cpp
  cpu/util/convolution.cpp
  cpu/util/im2col.cpp
  cpu/util/matmul.cpp
  cpu/util/padding.cpp
  cpu/util/pooling.cpp
  cpu/util/upsample.cpp
)
# The gemm micro-kernel relies on fused multiply-adds (ISO C++ mode turns contraction off).
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set_source_files_properties(cpu/util/gemm.cpp PROPERTIES COMPILE_OPTIONS -ffp-contract=fast)
endif()
