# FlatBuffers for the .pte reader: flatc (to generate it) and the header-only runtime it uses, of
# the same version (generated code refuses other headers). Debian/Ubuntu: apt-get install
# flatbuffers-compiler libflatbuffers-dev (tools/setup.sh does).
find_path(KILN_FLATBUFFERS_INCLUDE_DIR flatbuffers/flatbuffers.h)
if(NOT KILN_FLATBUFFERS_INCLUDE_DIR)
  message(FATAL_ERROR
    "Kiln's program loader needs the FlatBuffers headers (flatbuffers/flatbuffers.h). Install "
    "them (apt-get install libflatbuffers-dev flatbuffers-compiler, or run tools/setup.sh), or "
    "point KILN_FLATBUFFERS_INCLUDE_DIR at them.")
endif()
file(STRINGS "${KILN_FLATBUFFERS_INCLUDE_DIR}/flatbuffers/base.h" kiln_fb_version_lines
     REGEX "#define FLATBUFFERS_VERSION_(MAJOR|MINOR|REVISION) ")
set(kiln_fb_headers_version "")
foreach(part MAJOR MINOR REVISION)
  string(REGEX MATCH "FLATBUFFERS_VERSION_${part} ([0-9]+)" _ "${kiln_fb_version_lines}")
  list(APPEND kiln_fb_headers_version "${CMAKE_MATCH_1}")
endforeach()
string(JOIN "." kiln_fb_headers_version ${kiln_fb_headers_version})

# The flatc installed beside the headers first: other packages (a Python environment's
# executorch, for one) put flatc binaries of other versions on PATH.
get_filename_component(kiln_fb_prefix "${KILN_FLATBUFFERS_INCLUDE_DIR}" DIRECTORY)
find_program(KILN_FLATC flatc HINTS "${kiln_fb_prefix}/bin" NO_DEFAULT_PATH)
find_program(KILN_FLATC flatc)
if(NOT KILN_FLATC)
  message(FATAL_ERROR
    "Kiln's program loader needs flatc ${kiln_fb_headers_version}, the FlatBuffers compiler "
    "matching the headers in ${KILN_FLATBUFFERS_INCLUDE_DIR}. Install it (apt-get install "
    "flatbuffers-compiler), or point KILN_FLATC at it.")
endif()
execute_process(COMMAND "${KILN_FLATC}" --version OUTPUT_VARIABLE kiln_flatc_version
                OUTPUT_STRIP_TRAILING_WHITESPACE)
string(REGEX MATCH "[0-9]+\\.[0-9]+\\.[0-9]+" kiln_flatc_version "${kiln_flatc_version}")
if(NOT kiln_flatc_version STREQUAL kiln_fb_headers_version)
  message(FATAL_ERROR
    "flatc ${KILN_FLATC} is version ${kiln_flatc_version}, but the FlatBuffers headers in "
    "${KILN_FLATBUFFERS_INCLUDE_DIR} are ${kiln_fb_headers_version}; point KILN_FLATC at the "
    "flatc of the headers' version.")
endif()

# Generates <OUTPUT_DIR>/<schema name>_generated.h (C++, scoped enums) behind target TARGET.
function(kiln_generate_flatbuffers_reader)
  cmake_parse_arguments(ARG "" "SCHEMA;OUTPUT_DIR;TARGET" "" ${ARGN})
  get_filename_component(schema_name "${ARG_SCHEMA}" NAME_WE)
  set(header "${ARG_OUTPUT_DIR}/${schema_name}_generated.h")
  add_custom_command(
    OUTPUT "${header}"
    COMMAND "${KILN_FLATC}" --cpp --scoped-enums -o "${ARG_OUTPUT_DIR}" "${ARG_SCHEMA}"
    DEPENDS "${ARG_SCHEMA}"
    COMMENT "flatc: ${schema_name}.fbs -> ${schema_name}_generated.h"
    VERBATIM)
  add_custom_target(${ARG_TARGET} DEPENDS "${header}")
endfunction()
