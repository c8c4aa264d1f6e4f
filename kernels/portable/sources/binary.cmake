# Elementwise binary ops (Tensor and Scalar overloads).
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_add.cpp
  cpu/op_div.cpp
  cpu/op_mul.cpp
)
