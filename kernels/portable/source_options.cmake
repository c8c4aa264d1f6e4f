# Per-source compile options of the portable kernels, for the few sources whose loops need one.
# Every source gets them, in kiln_portable_kernels and in the operator libraries that compile
# kernel sources themselves (cmake/Codegen.cmake reads them back from the global properties).
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  return()
endif()

# The gemm micro-kernel relies on fused multiply-adds (ISO C++ mode turns contraction off).
set_source_files_properties(cpu/util/linalg/gemm.cpp PROPERTIES COMPILE_OPTIONS -ffp-contract=fast)

# The int8 calls requantize with a multiply and an add rounded apart (util/quantized/int8_gemm.h):
# every version gives the same bytes only if no compiler fuses them, whatever its default.
set_source_files_properties(
  cpu/util/quantized/int8_gemm.cpp cpu/util/quantized/int8_depthwise.cpp
  cpu/util/quantized/int8_conv.cpp cpu/isa/x86/gemm_int8_avx2.cpp
  cpu/isa/x86/gemm_int8_vnni.cpp
  PROPERTIES COMPILE_OPTIONS -ffp-contract=off)

# Loops that call std::sqrt and friends but never read errno: without its errno path GCC and
# Clang compile sqrt to the vector instruction instead of a call per element (the floating unary
# kernels, and the Box-Muller loop of the random fills).
set(kiln_no_errno_sources
  cpu/op_acos.cpp
  cpu/op_acosh.cpp
  cpu/op_asin.cpp
  cpu/op_asinh.cpp
  cpu/op_atan.cpp
  cpu/op_atanh.cpp
  cpu/op_cos.cpp
  cpu/op_cosh.cpp
  cpu/op_erf.cpp
  cpu/op_exp.cpp
  cpu/op_expm1.cpp
  cpu/op_glu.cpp
  cpu/op_log.cpp
  cpu/op_log10.cpp
  cpu/op_log1p.cpp
  cpu/op_log2.cpp
  cpu/op_logit.cpp
  cpu/op_reciprocal.cpp
  cpu/op_rsqrt.cpp
  cpu/op_sigmoid.cpp
  cpu/op_sin.cpp
  cpu/op_sinh.cpp
  cpu/op_sqrt.cpp
  cpu/op_tan.cpp
  cpu/op_tanh.cpp
  cpu/util/random/fills.cpp
)
set_source_files_properties(${kiln_no_errno_sources} PROPERTIES COMPILE_OPTIONS -fno-math-errno)
