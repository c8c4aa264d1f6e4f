# Compile settings shared by Kiln's own lean targets.

# Lean code: no exceptions or RTTI, sections per function so unused kernels are dropped at link.
# ATen mode keeps exceptions and RTTI: libtorch throws c10::Error, which the generated kernels
# catch and turn into failures, and its headers need RTTI.
# kiln_lean_target(<target> [EXCEPTIONS] [KERNELS]): EXCEPTIONS keeps exceptions for code that
# exceptions unwind through (the Ascend kernels in emulated builds, which the emulator's checker
# leaves by throwing). KERNELS is for the portable kernels, to keep them small:
# - no unwind tables: nothing they call throws and no exception crosses them, so .eh_frame would
#   only serve debuggers; ATen mode keeps them, as libtorch throws through its kernels;
# - with GCC, none of -O3's loop unswitching, peeling, splitting, stride versioning and
#   constant-propagation clones: they copy loops, and the copies measured no faster on
#   bench/kernels.py. The vectoriser, which pays, stays, but with GCC's cheap cost model (no loop
#   copies versioned on alias or alignment checks) and no vectorised epilogue after the main
#   vector loop (the scalar one finishes the rows' few leftover elements);
# - no padding to align functions, loops, jumps and labels: current cores do not run the aligned
#   code faster, so the padding is bytes for nothing;
# - -O3's complete unrolling of short loops capped at 16 instructions: GCC unrolls every loop of
#   bounded trip count (vector epilogues, lane folds, edge tiles), whatever the code grows by. The
#   loops that hold arrays of accumulators or lanes, which must unroll to live in registers, say
#   so with KILN_UNROLL (util/common/target.h).
# What each of these saved, and the cases timed to show it cost no speed: docs/performance.md.
function(kiln_lean_target target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "EXCEPTIONS;KERNELS" "" "")
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
    if(arg_KERNELS AND NOT arg_EXCEPTIONS)
      target_compile_options(${target} PRIVATE
        $<$<CXX_COMPILER_ID:GNU,Clang>:-fno-asynchronous-unwind-tables -fno-unwind-tables>
        $<$<CXX_COMPILER_ID:GNU>:--param=max-completely-peeled-insns=16
                                 -fno-unswitch-loops -fno-peel-loops -fno-split-loops
                                 -fno-version-loops-for-strides -fno-ipa-cp-clone
                                 -fvect-cost-model=cheap --param=vect-epilogues-nomask=0
                                 -fno-align-functions -fno-align-loops -fno-align-jumps
                                 -fno-align-labels>)
    endif()
  endif()
endfunction()
