# Elementwise unary ops and activations.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_abs.cpp
  cpu/op_bitwise_not.cpp
  cpu/op_ceil.cpp
  cpu/op_clamp.cpp
  cpu/op_cos.cpp
  cpu/op_elu.cpp
  cpu/op_erf.cpp
  cpu/op_exp.cpp
  cpu/op_floor.cpp
  cpu/op_gelu.cpp
  cpu/op_hardsigmoid.cpp
  cpu/op_hardswish.cpp
  cpu/op_hardtanh.cpp
  cpu/op_isinf.cpp
  cpu/op_isnan.cpp
  cpu/op_leaky_relu.cpp
  cpu/op_log.cpp
  cpu/op_log1p.cpp
  cpu/op_logical_not.cpp
  cpu/op_neg.cpp
  cpu/op_reciprocal.cpp
  cpu/op_relu.cpp
  cpu/op_round.cpp
  cpu/op_rsqrt.cpp
  cpu/op_sigmoid.cpp
  cpu/op_sign.cpp
  cpu/op_silu.cpp
  cpu/op_sin.cpp
  cpu/op_sqrt.cpp
  cpu/op_tanh.cpp
  cpu/op_trunc.cpp
  cpu/util/unary.cpp
  cpu/util/unary_kernels.cpp
)
# The floating unary kernels never read errno; without it GCC and Clang compile std::sqrt to the
# vector instruction instead of a call per element.
set(kiln_floating_unary_sources
  cpu/op_cos.cpp
  cpu/op_erf.cpp
  cpu/op_exp.cpp
  cpu/op_log.cpp
  cpu/op_log1p.cpp
  cpu/op_reciprocal.cpp
  cpu/op_rsqrt.cpp
  cpu/op_sigmoid.cpp
  cpu/op_sin.cpp
  cpu/op_sqrt.cpp
  cpu/op_tanh.cpp
)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set_source_files_properties(${kiln_floating_unary_sources}
                              PROPERTIES COMPILE_OPTIONS -fno-math-errno)
endif()
