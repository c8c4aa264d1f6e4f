# Reductions, softmax and normalisation.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_softmax.cpp
  cpu/op_sum.cpp
)
