# Compile settings shared by Kiln's own lean targets.

# Lean code: no exceptions or RTTI, sections per function so unused kernels are dropped at link.
function(kiln_lean_target target)
  target_compile_options(${target} PRIVATE
    $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-fno-exceptions -fno-rtti -ffunction-sections -fdata-sections -Wall -Wextra>)
endfunction()
