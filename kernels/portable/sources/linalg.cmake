# Linear algebra, convolution and pooling.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_mm.cpp
)
