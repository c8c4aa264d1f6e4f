# Elementwise binary ops (Tensor and Scalar overloads).
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_add.cpp
  cpu/op_atan2.cpp
  cpu/op_bitwise.cpp
  cpu/op_compare.cpp
  cpu/op_div.cpp
  cpu/op_logical.cpp
  cpu/op_maximum.cpp
  cpu/op_mul.cpp
  cpu/op_pow.cpp
  cpu/op_remainder.cpp
  cpu/op_where.cpp
  cpu/util/binary_ops.cpp
)
