# Compile settings shared by Kiln's own lean targets.

# Lean code: no exceptions or RTTI, sections per function so unused kernels are dropped at link.
# ATen mode keeps exceptions and RTTI: libtorch throws c10::Error, which the generated kernels
# catch and turn into failures, and its headers need RTTI.
function(kiln_lean_target target)
  if(KILN_ATEN_MODE)
    target_compile_options(${target} PRIVATE
      $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-ffunction-sections -fdata-sections -Wall -Wextra -Wno-switch>)
  else()
    target_compile_options(${target} PRIVATE
      $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-fno-exceptions -fno-rtti -ffunction-sections -fdata-sections -Wall -Wextra>)
  endif()
endfunction()
