# FlatBuffers for the .pte reader: flatc (to generate it) and the header-only runtime it uses.
# Debian/Ubuntu: apt-get install flatbuffers-compiler libflatbuffers-dev (tools/setup.sh does).
find_program(KILN_FLATC flatc)
find_path(KILN_FLATBUFFERS_INCLUDE_DIR flatbuffers/flatbuffers.h)
if(NOT KILN_FLATC OR NOT KILN_FLATBUFFERS_INCLUDE_DIR)
  message(FATAL_ERROR
    "Kiln's program loader needs FlatBuffers: flatc and flatbuffers/flatbuffers.h were "
    "${KILN_FLATC} and ${KILN_FLATBUFFERS_INCLUDE_DIR}. Install them (apt-get install "
    "flatbuffers-compiler libflatbuffers-dev, or run tools/setup.sh), or point KILN_FLATC and "
    "KILN_FLATBUFFERS_INCLUDE_DIR at them.")
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
