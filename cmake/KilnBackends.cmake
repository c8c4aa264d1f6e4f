# The backends Kiln kernels can target, read from runtime/kernel/backends.def: the one list the
# runtime (kiln::Backend), the codegen and this CMake API share.
include_guard(GLOBAL)

# Sets <out_var> to the backend names in kiln::Backend order, e.g. "portable;ascend".
function(kiln_read_backends def_file out_var)
  if(NOT EXISTS "${def_file}")
    message(FATAL_ERROR "Kiln's backend list '${def_file}' does not exist; reinstall Kiln")
  endif()
  file(STRINGS "${def_file}" lines REGEX "^KILN_BACKEND\\(")
  set(names "")
  foreach(line IN LISTS lines)
    if(NOT line MATCHES "^KILN_BACKEND\\( *[A-Za-z_][A-Za-z0-9_]* *, *([a-z_][a-z0-9_]*) *\\) *$")
      message(FATAL_ERROR "${def_file}: '${line}' is not 'KILN_BACKEND(Enumerator, name)'")
    endif()
    list(APPEND names "${CMAKE_MATCH_1}")
  endforeach()
  if(NOT names)
    message(FATAL_ERROR "${def_file} lists no backend")
  endif()
  set(${out_var} "${names}" PARENT_SCOPE)
endfunction()
