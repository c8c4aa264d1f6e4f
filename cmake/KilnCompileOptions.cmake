# Compile settings shared by Kiln's own lean targets.

# Lean code: no exceptions or RTTI, sections per function so unused kernels are dropped at link.
# ATen mode keeps exceptions and RTTI: libtorch throws c10::Error, which the generated kernels
# catch and turn into failures, and its headers need RTTI.
# kiln_lean_target(<target> [EXCEPTIONS] [NO_UNWIND_TABLES]): EXCEPTIONS keeps exceptions for
# code that exceptions unwind through (the Ascend kernels in emulated builds, which the emulator's
# checker leaves by throwing). NO_UNWIND_TABLES is for the portable kernels: nothing they call
# throws and no exception crosses them, so their unwind tables (.eh_frame, about 5% of a kernel
# binary) would only serve debuggers; ATen mode keeps them, as libtorch throws through its kernels.
function(kiln_lean_target target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "EXCEPTIONS;NO_UNWIND_TABLES" "" "")
  if(KILN_ATEN_MODE)
    target_compile_options(${target} PRIVATE
      $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:-ffunction-sections -fdata-sections -Wall -Wextra -Wno-switch>)
  else()
    set(exceptions -fno-exceptions)
    if(arg_EXCEPTIONS)
      set(exceptions -fexceptions)
    endif()
    target_compile_options(${target} PRIVATE
      $<$<CXX_COMPILER_ID:GNU,Clang,AppleClang>:${exceptions} -fno-rtti -ffunction-sections -fdata-sections -Wall -Wextra>)
    if(arg_NO_UNWIND_TABLES AND NOT arg_EXCEPTIONS)
      target_compile_options(${target} PRIVATE
        $<$<CXX_COMPILER_ID:GNU,Clang>:-fno-asynchronous-unwind-tables -fno-unwind-tables>)
    endif()
  endif()
endfunction()
