# Kiln's CMake API: gen_selected_ops, generate_bindings_for_kernels, gen_operators_lib, and
# kiln_add_operator_library, which makes the three calls for the common case.
#
#   gen_selected_ops(LIB_NAME n [ROOT_OPS op...] [OPS_YAML file...] [MODEL program...]
#                    [INCLUDE_ALL_OPS] [DTYPE_SELECTIVE_BUILD])
#     (OPS_YAML: functions/custom-ops YAML, or a selected_operators.yaml; MODEL: a .pte program
#     or a torch.export.save program, its ops with the dtypes each call uses; the selection is
#     made at configure time, and the library compiles only the portable kernel sources it needs
#     instead of linking kiln_portable_kernels, unless it selects every operator;
#     DTYPE_SELECTIVE_BUILD: it compiles them for the selected dtypes only)
#   generate_bindings_for_kernels(LIB_NAME n [FUNCTIONS_YAML f] [CUSTOM_OPS_YAML f]
#                                 [BACKENDS portable ascend] [STATIC_REGISTRATION]
#                                 [EMBED_MANIFEST])
#     (BACKENDS defaults to portable; with ascend, link kiln_ascend_kernels in gen_operators_lib)
#     (Kiln's operator set is functions.yaml plus custom_ops.yaml: FUNCTIONS_YAML
#     ${KILN_FUNCTIONS_YAML} brings ${KILN_CUSTOM_OPS_YAML} along, beside any CUSTOM_OPS_YAML)
#     (with KILN_ATEN_MODE the codegen runs with --aten-mode: ATen ops get libtorch's kernels)
#   gen_operators_lib(LIB_NAME n KERNEL_LIBS lib... [DEPS lib...])
#   kiln_add_operator_library(NAME n ROOT_OPS|OPS_YAML|MODEL ... [BACKENDS ...] ...)
#   kiln_add_runner(<target> OPERATOR_LIBRARY n)
#     (kiln_runner for .pte programs, holding only library n's kernels; see runner/)
#   kiln_add_mindspore_library(<target> OPERATOR_LIBRARY n)
#     (a shared library of MindSpore AOT entry points; n made with MINDSPORE_AOT)
#
# The three calls share state through the LIB_NAME; the result is a target `n` that an
# executable links with target_link_libraries() and nothing else: its registration code is an
# OBJECT library, so it is linked in whole without any --whole-archive flag.
include_guard(GLOBAL)

# Defaults for the source tree; KilnConfig.cmake sets the installed locations first. Cached so
# the functions see them from any directory, e.g. a parent project of add_subdirectory(kiln).
get_filename_component(_kiln_source_root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
# The codegen is kiln.codegen; PYTHONPATH gets the directory holding kiln/ (python/ here, also
# when a cache names a directory without it). The source tree's kiln/ has no extension module
# beside it, which is fine: the codegen never imports kiln._C, and kiln's __init__ imports nothing
# until asked.
if(NOT DEFINED KILN_CODEGEN_PYTHONPATH OR NOT EXISTS "${KILN_CODEGEN_PYTHONPATH}/kiln/codegen")
  set(KILN_CODEGEN_PYTHONPATH "${_kiln_source_root}/python")
endif()
if(NOT DEFINED KILN_FUNCTIONS_YAML)
  set(KILN_FUNCTIONS_YAML "${_kiln_source_root}/functions.yaml")
endif()
if(NOT DEFINED KILN_RUNNER_DIR)
  set(KILN_RUNNER_DIR "${_kiln_source_root}/runner")
endif()
if(NOT DEFINED KILN_CUSTOM_OPS_YAML)
  set(KILN_CUSTOM_OPS_YAML "${_kiln_source_root}/custom_ops.yaml")
endif()
set(KILN_CODEGEN_PYTHONPATH "${KILN_CODEGEN_PYTHONPATH}" CACHE INTERNAL
    "Directory holding kiln/codegen/, put on PYTHONPATH to run the codegen")
set(KILN_RUNNER_DIR "${KILN_RUNNER_DIR}" CACHE INTERNAL "Directory holding kiln_runner's sources")
set(KILN_FUNCTIONS_YAML "${KILN_FUNCTIONS_YAML}" CACHE INTERNAL "Kiln's functions.yaml")
set(KILN_CUSTOM_OPS_YAML "${KILN_CUSTOM_OPS_YAML}" CACHE INTERNAL
    "Kiln's custom_ops.yaml (its operators outside ATen)")

# The Python that runs the codegen must have torch (for torchgen) and pyyaml.
if(NOT KILN_PYTHON_EXECUTABLE)
  find_package(Python3 COMPONENTS Interpreter REQUIRED)
  set(KILN_PYTHON_EXECUTABLE "${Python3_EXECUTABLE}" CACHE FILEPATH
      "Python interpreter with torch and pyyaml, used to run Kiln's codegen")
endif()

# Fail at configure time, not mid-build, when the codegen cannot run.
if(NOT KILN_CODEGEN_PYTHON_OK)
  execute_process(
    COMMAND "${KILN_PYTHON_EXECUTABLE}" -c "import torchgen, yaml"
    RESULT_VARIABLE _kiln_python_status
    OUTPUT_QUIET ERROR_QUIET)
  if(NOT _kiln_python_status EQUAL 0)
    message(FATAL_ERROR
      "Kiln's codegen needs torch (for torchgen) and pyyaml in ${KILN_PYTHON_EXECUTABLE}. "
      "Install them (pip install torch==2.13.0 pyyaml) or point KILN_PYTHON_EXECUTABLE at a "
      "Python that has them. Building the kiln wheel? Use pip install --no-build-isolation, "
      "so the build sees the installed torch.")
  endif()
  set(KILN_CODEGEN_PYTHON_OK TRUE CACHE INTERNAL "")
endif()

# Backends come from the runtime's list; KilnConfig.cmake points KILN_BACKENDS_DEF at the
# installed copy.
if(NOT DEFINED KILN_BACKENDS_DEF)
  get_filename_component(KILN_BACKENDS_DEF "${CMAKE_CURRENT_LIST_DIR}/../runtime/kernel/backends.def"
                         ABSOLUTE)
endif()
set(KILN_BACKENDS_DEF "${KILN_BACKENDS_DEF}" CACHE INTERNAL "Kiln's backend list (backends.def)")
include("${CMAKE_CURRENT_LIST_DIR}/KilnBackends.cmake")
kiln_read_backends("${KILN_BACKENDS_DEF}" _kiln_backends)
set(_KILN_KNOWN_BACKENDS ${_kiln_backends} CACHE INTERNAL "Backends Kiln kernels can target")

# Fails configuration with a message naming the function and the problem; a long message may
# come in several strings, which are joined.
function(_kiln_fail function_name message)
  string(CONCAT text "${message}" ${ARGN})
  message(FATAL_ERROR "${function_name}: ${text}")
endfunction()

function(_kiln_check_common function_name prefix)
  if(${prefix}_UNPARSED_ARGUMENTS)
    _kiln_fail(${function_name} "unknown arguments: ${${prefix}_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ${prefix}_LIB_NAME)
    _kiln_fail(${function_name} "LIB_NAME is required, e.g. LIB_NAME my_ops")
  endif()
  if(NOT ${prefix}_LIB_NAME MATCHES "^[A-Za-z_][A-Za-z0-9_]*$")
    _kiln_fail(${function_name}
               "LIB_NAME '${${prefix}_LIB_NAME}' must be a C identifier (letters, digits, _)")
  endif()
endfunction()

function(_kiln_require_files function_name argument)
  foreach(file IN LISTS ARGN)
    if(NOT EXISTS "${file}")
      _kiln_fail(${function_name} "${argument} file '${file}' does not exist")
    endif()
  endforeach()
endfunction()

function(_kiln_gen_dir lib_name out_var)
  set(${out_var} "${CMAKE_CURRENT_BINARY_DIR}/${lib_name}" PARENT_SCOPE)
endfunction()

# Records in KILN_COMPILED_SOURCES_<lib> the portable kernel sources library <lib> compiles for
# its selection (python -m kiln.codegen.compiled_sources: the op_<name>.cpp of each selected
# operator and the util/ sources their #include graph reaches; every source for a selection of
# every operator). Nothing in ATen mode, or for a Kiln that lists no portable kernel sources.
function(_kiln_plan_portable_sources lib_name selection)
  get_property(sources GLOBAL PROPERTY KILN_PORTABLE_KERNEL_SOURCES)
  if(KILN_ATEN_MODE OR NOT sources)
    return()
  endif()
  get_property(kernel_dir GLOBAL PROPERTY KILN_PORTABLE_KERNEL_DIR)
  get_property(include_dir GLOBAL PROPERTY KILN_PORTABLE_KERNEL_INCLUDE_DIR)
  _kiln_gen_dir(${lib_name} gen_dir)
  string(REPLACE ";" "\n" source_lines "${sources}")
  file(CONFIGURE OUTPUT "${gen_dir}/portable_sources.txt" CONTENT "${source_lines}\n")
  set(output "${gen_dir}/compiled_sources.txt")
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env "PYTHONPATH=${KILN_CODEGEN_PYTHONPATH}"
            "${KILN_PYTHON_EXECUTABLE}" -m kiln.codegen.compiled_sources
            --selected-ops "${selection}" --sources "${gen_dir}/portable_sources.txt"
            --kernel-dir "${kernel_dir}" --include-dir "${include_dir}" --output "${output}"
            --depfile "${output}.deps"
    RESULT_VARIABLE status
    ERROR_VARIABLE error
    OUTPUT_QUIET)
  if(NOT status EQUAL 0)
    _kiln_fail(gen_selected_ops "finding the kernel sources of ${lib_name} failed:\n${error}")
  endif()
  file(STRINGS "${output}" compiled)
  # A kernel source that starts including another util header changes the plan.
  file(STRINGS "${output}.deps" read_files)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${read_files})
  set_property(GLOBAL PROPERTY KILN_COMPILED_SOURCES_${lib_name} "${compiled}")
  set_property(GLOBAL PROPERTY KILN_SOURCES_PLANNED_${lib_name} TRUE)
endfunction()

# Writes ${CMAKE_CURRENT_BINARY_DIR}/<lib>/selected_operators.yaml from the union of the sources.
# ExecuTorch's names for two of the arguments, OPS_SCHEMA_YAML and OPS_FROM_MODEL, are accepted as
# spellings of OPS_YAML and MODEL, so an ExecuTorch CMakeLists.txt works unchanged.
function(gen_selected_ops)
  cmake_parse_arguments(ARG "INCLUDE_ALL_OPS;DTYPE_SELECTIVE_BUILD" "LIB_NAME"
                        "ROOT_OPS;OPS_YAML;MODEL;OPS_SCHEMA_YAML;OPS_FROM_MODEL" ${ARGN})
  _kiln_check_common(gen_selected_ops ARG)
  list(APPEND ARG_OPS_YAML ${ARG_OPS_SCHEMA_YAML})
  list(APPEND ARG_MODEL ${ARG_OPS_FROM_MODEL})
  if(NOT ARG_ROOT_OPS AND NOT ARG_OPS_YAML AND NOT ARG_MODEL AND NOT ARG_INCLUDE_ALL_OPS)
    _kiln_fail(gen_selected_ops "give at least one of ROOT_OPS, OPS_YAML, MODEL or INCLUDE_ALL_OPS")
  endif()
  _kiln_require_files(gen_selected_ops OPS_YAML ${ARG_OPS_YAML})
  _kiln_require_files(gen_selected_ops MODEL ${ARG_MODEL})
  _kiln_gen_dir(${ARG_LIB_NAME} gen_dir)
  set(output "${gen_dir}/selected_operators.yaml")
  set(command "${KILN_PYTHON_EXECUTABLE}" -m kiln.codegen.oplist --output "${output}")
  if(ARG_ROOT_OPS)
    string(REPLACE ";" "," root_ops "${ARG_ROOT_OPS}")
    list(APPEND command --root-ops "${root_ops}")
  endif()
  foreach(yaml IN LISTS ARG_OPS_YAML)
    list(APPEND command --ops-yaml "${yaml}")
  endforeach()
  foreach(model IN LISTS ARG_MODEL)
    list(APPEND command --model "${model}")
  endforeach()
  if(ARG_INCLUDE_ALL_OPS)
    list(APPEND command --include-all-ops)
  endif()
  # At configure time, so the library knows which kernel sources to compile; a changed input
  # re-runs the configure, and the file is rewritten only when the selection changes.
  execute_process(
    COMMAND ${CMAKE_COMMAND} -E env "PYTHONPATH=${KILN_CODEGEN_PYTHONPATH}" ${command}
    RESULT_VARIABLE status
    ERROR_VARIABLE error
    OUTPUT_QUIET)
  if(NOT status EQUAL 0)
    _kiln_fail(gen_selected_ops "selecting the operators of ${ARG_LIB_NAME} failed:\n${error}")
  endif()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${ARG_OPS_YAML} ${ARG_MODEL})
  set_property(GLOBAL PROPERTY KILN_SELECTED_OPS_${ARG_LIB_NAME} "${output}")
  _kiln_plan_portable_sources(${ARG_LIB_NAME} "${output}")
  if(ARG_DTYPE_SELECTIVE_BUILD)
    if(KILN_ATEN_MODE)
      _kiln_fail(gen_selected_ops "DTYPE_SELECTIVE_BUILD selects dtypes of Kiln's portable \
kernels; ATen mode runs libtorch's, so drop it in ATen mode")
    endif()
    get_property(sources GLOBAL PROPERTY KILN_PORTABLE_KERNEL_SOURCES)
    if(NOT sources)
      _kiln_fail(gen_selected_ops "DTYPE_SELECTIVE_BUILD compiles Kiln's portable kernel \
sources, and this Kiln lists none (an installed Kiln lists them in \
KilnPortableKernels.cmake beside KilnConfig.cmake); reinstall Kiln")
    endif()
    set_property(GLOBAL PROPERTY KILN_DTYPE_SELECTIVE_${ARG_LIB_NAME} TRUE)
  endif()
endfunction()

# The generated copy of each portable kernel source a dtype-selective library compiles
# (CompiledSource.stem in kiln/codegen/selective_build/kernel_sources.py: its path under cpu/
# with _ for /, cpu/op_add.cpp -> op_add, cpu/util/linalg/gemm.cpp -> util_linalg_gemm).
function(_kiln_dtype_selected_sources lib_name gen_dir out_var)
  get_property(sources GLOBAL PROPERTY KILN_COMPILED_SOURCES_${lib_name})
  set(generated "")
  foreach(source IN LISTS sources)
    string(REGEX REPLACE "^.*/cpu/" "" name "${source}")
    string(REGEX REPLACE "\\.cpp$" "" name "${name}")
    string(REPLACE "/" "_" name "${name}")
    list(APPEND generated "${gen_dir}/dtype_selected/${name}.cpp")
  endforeach()
  set(${out_var} "${generated}" PARENT_SCOPE)
endfunction()

# Runs `python -m kiln.codegen` for the library; the generated files land in
# ${CMAKE_CURRENT_BINARY_DIR}/<lib>/ and are rewritten only when their content changes.
function(generate_bindings_for_kernels)
  cmake_parse_arguments(ARG "STATIC_REGISTRATION;EMBED_MANIFEST;MINDSPORE_AOT"
                        "LIB_NAME;FUNCTIONS_YAML;CUSTOM_OPS_YAML"
                        "BACKENDS" ${ARGN})
  _kiln_check_common(generate_bindings_for_kernels ARG)
  # ATen mode takes ATen schemas from native_functions.yaml, so the selection alone suffices.
  if(NOT ARG_FUNCTIONS_YAML AND NOT ARG_CUSTOM_OPS_YAML AND NOT KILN_ATEN_MODE)
    _kiln_fail(generate_bindings_for_kernels
               "give FUNCTIONS_YAML and/or CUSTOM_OPS_YAML (Kiln's is ${KILN_FUNCTIONS_YAML})")
  endif()
  _kiln_require_files(generate_bindings_for_kernels FUNCTIONS_YAML ${ARG_FUNCTIONS_YAML})
  _kiln_require_files(generate_bindings_for_kernels CUSTOM_OPS_YAML ${ARG_CUSTOM_OPS_YAML})
  foreach(backend IN LISTS ARG_BACKENDS)
    if(NOT backend IN_LIST _KILN_KNOWN_BACKENDS)
      _kiln_fail(generate_bindings_for_kernels
                 "unknown backend '${backend}'; known backends: ${_KILN_KNOWN_BACKENDS}")
    endif()
  endforeach()
  # Without this the library would configure and then fail to link its Ascend kernels.
  if("ascend" IN_LIST ARG_BACKENDS AND KILN_ASCEND STREQUAL "off")
    _kiln_fail(generate_bindings_for_kernels "BACKENDS names ascend, but this Kiln is built \
without the Ascend backend (KILN_ASCEND=off, as in ATen mode); build Kiln with -DKILN_ASCEND=emu \
or cann, or drop ascend from BACKENDS")
  endif()

  _kiln_gen_dir(${ARG_LIB_NAME} gen_dir)
  set(command "${KILN_PYTHON_EXECUTABLE}" -m kiln.codegen --output-dir "${gen_dir}"
              --lib-name ${ARG_LIB_NAME})
  set(depends "")
  if(ARG_FUNCTIONS_YAML)
    list(APPEND command --functions-yaml "${ARG_FUNCTIONS_YAML}")
    list(APPEND depends "${ARG_FUNCTIONS_YAML}")
  endif()
  # Kiln's functions.yaml comes with its custom_ops.yaml: together they are Kiln's operator set.
  set(custom_yamls ${ARG_CUSTOM_OPS_YAML})
  if(ARG_FUNCTIONS_YAML STREQUAL KILN_FUNCTIONS_YAML AND NOT KILN_CUSTOM_OPS_YAML IN_LIST
                                                         custom_yamls)
    list(PREPEND custom_yamls "${KILN_CUSTOM_OPS_YAML}")
  endif()
  foreach(custom_yaml IN LISTS custom_yamls)
    list(APPEND command --custom-ops-yaml "${custom_yaml}")
    list(APPEND depends "${custom_yaml}")
  endforeach()
  get_property(selected GLOBAL PROPERTY KILN_SELECTED_OPS_${ARG_LIB_NAME})
  if(selected)
    list(APPEND command --selected-ops "${selected}")
    list(APPEND depends "${selected}")
  endif()
  # Portable unless asked: a backend's kernels must be linked (KERNEL_LIBS) to register.
  if(NOT ARG_BACKENDS)
    set(ARG_BACKENDS portable)
  endif()
  string(REPLACE ";" "," backends "${ARG_BACKENDS}")
  list(APPEND command --backends "${backends}")
  if(ARG_STATIC_REGISTRATION)
    list(APPEND command --static-registration)
  endif()
  if(ARG_EMBED_MANIFEST)
    list(APPEND command --embed-manifest)
  endif()
  if(KILN_ATEN_MODE)
    list(APPEND command --aten-mode)
  endif()
  set(kernel_outputs "")
  if(ARG_MINDSPORE_AOT)
    list(APPEND command --mindspore-aot)
    list(APPEND kernel_outputs "${gen_dir}/MindSporeAot.cpp")
    set_property(GLOBAL PROPERTY KILN_MINDSPORE_AOT_${ARG_LIB_NAME} TRUE)
  endif()
  get_property(dtype_selective GLOBAL PROPERTY KILN_DTYPE_SELECTIVE_${ARG_LIB_NAME})
  if(dtype_selective)
    # Only the sources the selection needs (_kiln_plan_portable_sources); with none of Kiln's
    # operators selected, the list the codegen checks the kernels against is all of them.
    get_property(kernel_sources GLOBAL PROPERTY KILN_COMPILED_SOURCES_${ARG_LIB_NAME})
    set(listed ${kernel_sources})
    if(NOT listed)
      get_property(listed GLOBAL PROPERTY KILN_PORTABLE_KERNEL_SOURCES)
    endif()
    string(REPLACE ";" "\n" source_lines "${listed}")
    file(CONFIGURE OUTPUT "${gen_dir}/kernel_sources.txt" CONTENT "${source_lines}\n")
    list(APPEND command --dtype-selective-build "${gen_dir}/kernel_sources.txt")
    list(APPEND depends "${gen_dir}/kernel_sources.txt" ${kernel_sources})
    _kiln_dtype_selected_sources(${ARG_LIB_NAME} "${gen_dir}" kernel_outputs)
  endif()
  file(GLOB_RECURSE codegen_sources CONFIGURE_DEPENDS "${KILN_CODEGEN_PYTHONPATH}/kiln/codegen/*.py"
       "${KILN_CODEGEN_PYTHONPATH}/kiln/codegen/templates/*.in")

  set(outputs
      "${gen_dir}/NativeFunctions.h" "${gen_dir}/Functions.h" "${gen_dir}/RegisterKernels.h"
      "${gen_dir}/RegisterKernels.cpp" "${gen_dir}/selected_op_variants.h"
      "${gen_dir}/${ARG_LIB_NAME}.manifest.json" ${kernel_outputs})
  # The stamp changes every run; the real outputs only when their content does (Ninja restat).
  add_custom_command(
    OUTPUT "${gen_dir}/codegen.stamp"
    BYPRODUCTS ${outputs}
    COMMAND ${CMAKE_COMMAND} -E env "PYTHONPATH=${KILN_CODEGEN_PYTHONPATH}" ${command}
    COMMAND ${CMAKE_COMMAND} -E touch "${gen_dir}/codegen.stamp"
    DEPENDS ${depends} ${codegen_sources} "${KILN_BACKENDS_DEF}"
    COMMENT "Kiln: generating kernel bindings for ${ARG_LIB_NAME}"
    VERBATIM)
  set_property(GLOBAL PROPERTY KILN_GENERATED_${ARG_LIB_NAME} TRUE)
endfunction()

# Creates target <lib>: the generated registration (an OBJECT library, so it always links in)
# plus the kernel libraries and runtime it needs. The generated headers (Functions.h,
# RegisterKernels.h, ...) are on its include path.
function(gen_operators_lib)
  cmake_parse_arguments(ARG "" "LIB_NAME" "KERNEL_LIBS;DEPS" ${ARGN})
  _kiln_check_common(gen_operators_lib ARG)
  get_property(generated GLOBAL PROPERTY KILN_GENERATED_${ARG_LIB_NAME})
  if(NOT generated)
    _kiln_fail(gen_operators_lib
               "call generate_bindings_for_kernels(LIB_NAME ${ARG_LIB_NAME} ...) first")
  endif()
  if(NOT ARG_KERNEL_LIBS)
    _kiln_fail(gen_operators_lib
               "KERNEL_LIBS is required, e.g. KERNEL_LIBS kiln_portable_kernels")
  endif()
  foreach(lib IN LISTS ARG_KERNEL_LIBS ARG_DEPS)
    if(NOT TARGET ${lib})
      _kiln_fail(gen_operators_lib "'${lib}' is not a CMake target (define it before this call)")
    endif()
  endforeach()
  _kiln_gen_dir(${ARG_LIB_NAME} gen_dir)
  add_library(${ARG_LIB_NAME} OBJECT "${gen_dir}/RegisterKernels.cpp" "${gen_dir}/codegen.stamp")
  target_include_directories(${ARG_LIB_NAME} PUBLIC "${gen_dir}")
  get_property(dtype_selective GLOBAL PROPERTY KILN_DTYPE_SELECTIVE_${ARG_LIB_NAME})
  get_property(planned GLOBAL PROPERTY KILN_SOURCES_PLANNED_${ARG_LIB_NAME})
  get_property(compiled GLOBAL PROPERTY KILN_COMPILED_SOURCES_${ARG_LIB_NAME})
  get_property(all_sources GLOBAL PROPERTY KILN_PORTABLE_KERNEL_SOURCES)
  set(portable_archives kiln_portable_kernels Kiln::portable_kernels)
  set(links_portable FALSE)
  foreach(archive IN LISTS portable_archives)
    if(archive IN_LIST ARG_KERNEL_LIBS)
      set(links_portable TRUE)
    endif()
  endforeach()
  if(dtype_selective)
    _kiln_compile_dtype_selected_kernels(${ARG_LIB_NAME} "${gen_dir}")
    # The library compiles the portable kernels it needs; the archive of all dtypes stays out.
    list(REMOVE_ITEM ARG_KERNEL_LIBS ${portable_archives})
  elseif(planned AND links_portable AND NOT compiled STREQUAL all_sources)
    # A selective build compiles the kernels it selected, not the whole archive.
    list(REMOVE_ITEM ARG_KERNEL_LIBS ${portable_archives})
    if(compiled)
      _kiln_add_selected_kernels(${ARG_LIB_NAME}_portable_kernels "${compiled}")
      list(APPEND ARG_KERNEL_LIBS ${ARG_LIB_NAME}_portable_kernels)
    endif()
  endif()
  if(TARGET kiln_runtime)
    set(runtime kiln_runtime)
  else()
    set(runtime Kiln::runtime)
  endif()
  target_link_libraries(${ARG_LIB_NAME} PUBLIC ${ARG_KERNEL_LIBS} ${ARG_DEPS} ${runtime})
  target_compile_features(${ARG_LIB_NAME} PUBLIC cxx_std_17)
  # Kernels are compiled with one section per function; let the linker drop the unused ones.
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND NOT APPLE)
    target_link_options(${ARG_LIB_NAME} INTERFACE "-Wl,--gc-sections")
  elseif(APPLE)
    target_link_options(${ARG_LIB_NAME} INTERFACE "-Wl,-dead_strip")
  endif()
  if(COMMAND kiln_lean_target AND dtype_selective)
    kiln_lean_target(${ARG_LIB_NAME} KERNELS)  # it holds kernels
  elseif(COMMAND kiln_lean_target)
    kiln_lean_target(${ARG_LIB_NAME})
  endif()
endfunction()

# Gives each of `files` (compiled into `target`) the compile options that `sources`, the
# portable kernel sources they compile, get in kiln_portable_kernels, and `target` the archive's
# definitions (recorded by kernels/portable/CMakeLists.txt in the source tree, by
# KilnPortableKernels.cmake installed). A build without a build type compiles them optimised.
function(_kiln_portable_compile_settings target sources files)
  foreach(source file IN ZIP_LISTS sources files)
    get_property(options GLOBAL PROPERTY "KILN_PORTABLE_KERNEL_OPTIONS_${source}")
    if(options)
      set_source_files_properties("${file}" PROPERTIES COMPILE_OPTIONS "${options}")
    endif()
  endforeach()
  get_property(definitions GLOBAL PROPERTY KILN_PORTABLE_KERNEL_DEFINITIONS)
  if(definitions)
    target_compile_definitions(${target} PRIVATE ${definitions})
  endif()
  if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES
     AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
    target_compile_options(${target} PRIVATE -O3)
  endif()
endfunction()

# Adds the dtype-selected copies of the portable kernel sources the library needs to `target`.
function(_kiln_compile_dtype_selected_kernels target gen_dir)
  get_property(sources GLOBAL PROPERTY KILN_COMPILED_SOURCES_${target})
  _kiln_dtype_selected_sources(${target} "${gen_dir}" generated)
  target_sources(${target} PRIVATE ${generated})
  _kiln_portable_compile_settings(${target} "${sources}" "${generated}")
endfunction()

# Static library `target` of the portable kernel sources `sources`, compiled as
# kiln_portable_kernels compiles them. Static, so two libraries that both hold a kernel link into
# one program.
function(_kiln_add_selected_kernels target sources)
  add_library(${target} STATIC ${sources})
  _kiln_portable_compile_settings(${target} "${sources}" "${sources}")
  if(TARGET kiln_runtime)
    target_link_libraries(${target} PUBLIC kiln_runtime)
  else()
    target_link_libraries(${target} PUBLIC Kiln::runtime)
  endif()
  kiln_lean_target(${target} KERNELS)
endfunction()

# The common case in one call: selects operators, generates the bindings and creates target
# <NAME> to link into an executable.
#   kiln_add_operator_library(NAME <lib> [ROOT_OPS ...] [OPS_YAML ...] [MODEL ...]
#                             [INCLUDE_ALL_OPS] [DTYPE_SELECTIVE_BUILD] [MINDSPORE_AOT]
#                             [BACKENDS ...]
#                             [FUNCTIONS_YAML <f>] [CUSTOM_OPS_YAML <f>] [KERNEL_LIBS ...])
# FUNCTIONS_YAML defaults to Kiln's functions.yaml (with Kiln's custom_ops.yaml), with or without
# CUSTOM_OPS_YAML: adding a custom operator keeps Kiln's operators selectable. Kiln's kernel
# libraries are linked whenever Kiln's functions.yaml is used, after any KERNEL_LIBS given.
function(kiln_add_operator_library)
  cmake_parse_arguments(ARG "INCLUDE_ALL_OPS;DTYPE_SELECTIVE_BUILD;MINDSPORE_AOT"
                        "NAME;FUNCTIONS_YAML;CUSTOM_OPS_YAML"
                        "ROOT_OPS;OPS_YAML;MODEL;BACKENDS;KERNEL_LIBS" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    _kiln_fail(kiln_add_operator_library "unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_NAME)
    _kiln_fail(kiln_add_operator_library "NAME is required, e.g. NAME my_model_ops")
  endif()
  set(select_args "")
  foreach(list_arg ROOT_OPS OPS_YAML MODEL)
    if(ARG_${list_arg})
      list(APPEND select_args ${list_arg} ${ARG_${list_arg}})
    endif()
  endforeach()
  foreach(flag INCLUDE_ALL_OPS DTYPE_SELECTIVE_BUILD)
    if(ARG_${flag})
      list(APPEND select_args ${flag})
    endif()
  endforeach()
  gen_selected_ops(LIB_NAME ${ARG_NAME} ${select_args})

  if(NOT ARG_FUNCTIONS_YAML)
    set(ARG_FUNCTIONS_YAML "${KILN_FUNCTIONS_YAML}")
  endif()
  set(binding_args "")
  foreach(file_arg FUNCTIONS_YAML CUSTOM_OPS_YAML)
    if(ARG_${file_arg})
      list(APPEND binding_args ${file_arg} "${ARG_${file_arg}}")
    endif()
  endforeach()
  if(ARG_BACKENDS)
    list(APPEND binding_args BACKENDS ${ARG_BACKENDS})
  endif()
  if(ARG_MINDSPORE_AOT)
    list(APPEND binding_args MINDSPORE_AOT)
  endif()
  generate_bindings_for_kernels(LIB_NAME ${ARG_NAME} ${binding_args})

  if(ARG_FUNCTIONS_YAML STREQUAL KILN_FUNCTIONS_YAML)
    foreach(candidate kiln_portable_kernels Kiln::portable_kernels kiln_ascend_kernels
                      Kiln::ascend_kernels)
      if(TARGET ${candidate})
        list(APPEND ARG_KERNEL_LIBS ${candidate})
      endif()
    endforeach()
  endif()
  gen_operators_lib(LIB_NAME ${ARG_NAME} KERNEL_LIBS ${ARG_KERNEL_LIBS})
endfunction()

# Sets <out_var> to the operator library target named by `OPERATOR_LIBRARY <n>` in the
# arguments of <function_name> (kiln_add_runner, kiln_add_mindspore_library); fails otherwise.
function(_kiln_operator_library_arg function_name out_var)
  cmake_parse_arguments(ARG "" "OPERATOR_LIBRARY" "" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    _kiln_fail(${function_name} "unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_OPERATOR_LIBRARY OR NOT TARGET ${ARG_OPERATOR_LIBRARY})
    _kiln_fail(${function_name}
               "OPERATOR_LIBRARY must name an operator library target made first with "
               "kiln_add_operator_library(NAME <n> ...), got '${ARG_OPERATOR_LIBRARY}'")
  endif()
  set(${out_var} ${ARG_OPERATOR_LIBRARY} PARENT_SCOPE)
endfunction()

# kiln_add_runner(<target> OPERATOR_LIBRARY <n>): the program runner (runner/kiln_runner.cpp)
# linked with operator library <n> (from kiln_add_operator_library or gen_operators_lib), whose
# kernels are all it holds.
function(kiln_add_runner target)
  _kiln_operator_library_arg(kiln_add_runner ARG_OPERATOR_LIBRARY ${ARGN})
  if(NOT TARGET kiln_executor AND NOT TARGET Kiln::executor)
    _kiln_fail(kiln_add_runner "this Kiln has no program executor (an ATen-mode build?)")
  endif()
  add_executable(${target} "${KILN_RUNNER_DIR}/kiln_runner.cpp"
                           "${KILN_RUNNER_DIR}/runner_inputs.cpp")
  target_include_directories(${target} PRIVATE "${KILN_RUNNER_DIR}")
  target_compile_definitions(${target}
                             PRIVATE KILN_RUNNER_REGISTER=register_${ARG_OPERATOR_LIBRARY}_kernels)
  if(TARGET kiln_executor)
    set(executor kiln_executor)
  else()
    set(executor Kiln::executor)
  endif()
  target_link_libraries(${target} PRIVATE ${ARG_OPERATOR_LIBRARY} ${executor})
  # --threads N: the runner makes the kiln::PthreadPool its kernels borrow.
  if(TARGET kiln_threads)
    target_link_libraries(${target} PRIVATE kiln_threads)
  else()
    target_link_libraries(${target} PRIVATE Kiln::threads)
  endif()
  kiln_lean_target(${target})
endfunction()

# kiln_add_mindspore_library(<target> OPERATOR_LIBRARY <n>): shared library <target> holding
# library <n>'s kernels and its MindSpore AOT entry points, for
# ops.Custom("<path>/lib<target>.so:kiln_ms_<op>", func_type="aot") on CPU or
# kiln.mindspore.custom(op, path). <n> must be generated with MINDSPORE_AOT.
function(kiln_add_mindspore_library target)
  _kiln_operator_library_arg(kiln_add_mindspore_library ARG_OPERATOR_LIBRARY ${ARGN})
  get_property(aot GLOBAL PROPERTY KILN_MINDSPORE_AOT_${ARG_OPERATOR_LIBRARY})
  if(NOT aot)
    _kiln_fail(kiln_add_mindspore_library
               "library '${ARG_OPERATOR_LIBRARY}' has no MindSpore entry points: add "
               "MINDSPORE_AOT to its kiln_add_operator_library or generate_bindings_for_kernels")
  endif()
  if(TARGET kiln_mindspore_aot)
    set(support kiln_mindspore_aot)
  elseif(TARGET Kiln::mindspore_aot)
    set(support Kiln::mindspore_aot)
  else()
    _kiln_fail(kiln_add_mindspore_library
               "this Kiln has no MindSpore support library (an ATen-mode build?)")
  endif()
  _kiln_gen_dir(${ARG_OPERATOR_LIBRARY} gen_dir)
  add_library(${target} SHARED "${gen_dir}/MindSporeAot.cpp")
  # Only the entry points are exported: Kiln's runtime stays private to the library, so two such
  # libraries, or one and kiln._C, do not share a registry in one process.
  set_target_properties(${target} PROPERTIES CXX_VISIBILITY_PRESET hidden
                                             VISIBILITY_INLINES_HIDDEN ON)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND NOT APPLE)
    target_link_options(${target} PRIVATE "-Wl,--exclude-libs,ALL")
  endif()
  target_link_libraries(${target} PRIVATE ${ARG_OPERATOR_LIBRARY} ${support})
  kiln_lean_target(${target})
endfunction()
