# Shared machinery of the portable kernels.
list(APPEND KILN_PORTABLE_SOURCES
  cpu/util/broadcast.cpp
  cpu/util/checks.cpp
  cpu/util/convert.cpp
  cpu/util/elementwise.cpp
  cpu/util/gemm.cpp
  cpu/util/parallel.cpp
  cpu/util/promotion.cpp
  cpu/util/reduce.cpp
  cpu/util/scalar_util.cpp
)
