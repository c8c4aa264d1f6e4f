# Elementwise unary ops and activations.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_activation.cpp
  cpu/op_clamp.cpp
  cpu/op_relu.cpp
  cpu/op_rounding.cpp
  cpu/op_unary_float.cpp
  cpu/op_unary_misc.cpp
  cpu/util/unary.cpp
)
# The floating unary kernels never read errno; without it GCC and Clang compile std::sqrt to the
# vector instruction instead of a call per element.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set_source_files_properties(cpu/op_unary_float.cpp PROPERTIES COMPILE_OPTIONS -fno-math-errno)
endif()
