# Random ops: they draw from the context's random generator (runtime/kernel/random_generator.h).
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_native_dropout.cpp
  cpu/op_rand.cpp
  cpu/op_randn.cpp
  cpu/util/random.cpp
)
