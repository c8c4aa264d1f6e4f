# Random ops: they draw from the context's random generator (runtime/kernel/random_generator.h).
list(APPEND KILN_PORTABLE_SOURCES
  cpu/op_native_dropout.cpp
  cpu/op_rand.cpp
  cpu/op_randn.cpp
  cpu/util/random.cpp
)
# sqrt's errno path would keep the Box-Muller loop scalar; nothing in these loops reads errno.
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  set_source_files_properties(cpu/util/random.cpp PROPERTIES COMPILE_OPTIONS -fno-math-errno)
endif()
