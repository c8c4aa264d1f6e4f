# ATen mode: libtorch from the installed torch package becomes Kiln's tensor library and kernel
# provider. Sets the C++ standard and ABI that torch was built with and defines the imported
# target `torch` that kiln_runtime links publicly.
include_guard(GLOBAL)

if(NOT Torch_DIR)
  execute_process(
    COMMAND "${KILN_PYTHON_EXECUTABLE}" -c "import torch.utils; print(torch.utils.cmake_prefix_path)"
    OUTPUT_VARIABLE _kiln_torch_prefix
    OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _kiln_torch_status
    ERROR_QUIET)
  if(NOT _kiln_torch_status EQUAL 0)
    message(FATAL_ERROR "KILN_ATEN_MODE=ON needs torch in ${KILN_PYTHON_EXECUTABLE} "
                        "(pip install torch==2.13.0), or Torch_DIR pointing at libtorch's "
                        "share/cmake/Torch")
  endif()
  list(APPEND CMAKE_PREFIX_PATH "${_kiln_torch_prefix}")
endif()
find_package(Torch REQUIRED CONFIG)

# The libstdc++ ABI must match libtorch's (torch 2.13's TORCH_CXX_FLAGS is empty, so ask torch).
if(NOT DEFINED KILN_TORCH_CXX11_ABI)
  execute_process(
    COMMAND "${KILN_PYTHON_EXECUTABLE}" -c
            "import torch; print(int(torch._C._GLIBCXX_USE_CXX11_ABI))"
    OUTPUT_VARIABLE _kiln_torch_abi
    OUTPUT_STRIP_TRAILING_WHITESPACE
    RESULT_VARIABLE _kiln_torch_status
    ERROR_QUIET)
  if(NOT _kiln_torch_status EQUAL 0 OR NOT _kiln_torch_abi MATCHES "^[01]$")
    set(_kiln_torch_abi 1)  # libtorch's default since torch 2.7
  endif()
  set(KILN_TORCH_CXX11_ABI ${_kiln_torch_abi} CACHE STRING
      "_GLIBCXX_USE_CXX11_ABI of the installed libtorch (asked from torch at configure)")
endif()

# torch's headers need the standard it was built with (C++20 for torch 2.13); the ABI flag comes
# with the `torch` target's compile options (TORCH_CXX_FLAGS, -D_GLIBCXX_USE_CXX11_ABI=...).
get_target_property(_kiln_torch_std torch CXX_STANDARD)
if(_kiln_torch_std AND (NOT CMAKE_CXX_STANDARD OR _kiln_torch_std GREATER CMAKE_CXX_STANDARD))
  set(CMAKE_CXX_STANDARD ${_kiln_torch_std})
endif()
set(KILN_TORCH_CXX_STANDARD ${CMAKE_CXX_STANDARD} CACHE INTERNAL "C++ standard of ATen mode")
message(STATUS "Kiln ATen mode: torch ${Torch_VERSION} from ${TORCH_INSTALL_PREFIX}, "
               "C++${CMAKE_CXX_STANDARD}, _GLIBCXX_USE_CXX11_ABI=${KILN_TORCH_CXX11_ABI}")
