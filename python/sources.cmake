# The extension's sources, relative to this directory: python/CMakeLists.txt builds kiln._C from
# them, and tests/fuzz builds a sanitized kiln._C from the same list.
set(KILN_PYTHON_COMMON_SOURCES src/module.cpp src/thread_settings.cpp)
# The lean (portable kernels) module's calls and programs; ATen mode has its own boxed call.
set(KILN_PYTHON_LEAN_SOURCES
    src/boxed_call.cpp src/bound_operator.cpp src/bound_operator_type.cpp src/program_bindings.cpp
    src/sigint_cancels.cpp src/torch_tensor_view.cpp src/torch_values.cpp)
