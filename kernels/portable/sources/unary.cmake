# Elementwise unary ops and activations.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_relu.cpp
)
