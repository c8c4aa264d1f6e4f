# Elementwise binary ops (Tensor and Scalar overloads).
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_add.cpp
  cpu/op_atan2.cpp
  cpu/op_bitwise_and.cpp
  cpu/op_bitwise_or.cpp
  cpu/op_bitwise_xor.cpp
  cpu/op_div.cpp
  cpu/op_eq.cpp
  cpu/op_fmod.cpp
  cpu/op_ge.cpp
  cpu/op_gt.cpp
  cpu/op_le.cpp
  cpu/op_logical_and.cpp
  cpu/op_logical_or.cpp
  cpu/op_logical_xor.cpp
  cpu/op_lt.cpp
  cpu/op_maximum.cpp
  cpu/op_minimum.cpp
  cpu/op_mul.cpp
  cpu/op_ne.cpp
  cpu/op_pow.cpp
  cpu/op_remainder.cpp
  cpu/op_sub.cpp
  cpu/op_where.cpp
  cpu/util/binary_ops.cpp
)
