# pthreadpool, the intra-op thread pool behind kiln::PthreadPool (runtime/threads). Debian and
# Ubuntu package it as libpthreadpool-dev (a header and a shared library, no CMake config), which
# tools/setup.sh installs. KILN_THREADS is AUTO by default: ON when pthreadpool is found, checked
# again at every configure, so a build tree configured before libpthreadpool-dev was installed
# turns multi-threaded at its next configure instead of keeping OFF in its cache. ON or OFF, set
# by the user, is kept. OFF (or not found) builds Kiln single-threaded: PthreadPool then refuses
# more than one thread with a clear error.
# Defines Kiln::pthreadpool (imported) when KILN_THREADS is ON. Included by the source tree and by
# the installed KilnConfig.cmake, with KILN_THREADS already set to the install's choice.
find_path(KILN_PTHREADPOOL_INCLUDE_DIR pthreadpool.h)
find_library(KILN_PTHREADPOOL_LIBRARY pthreadpool)
if(KILN_PTHREADPOOL_INCLUDE_DIR AND KILN_PTHREADPOOL_LIBRARY)
  set(kiln_pthreadpool_found ON)
else()
  set(kiln_pthreadpool_found OFF)
endif()
set(kiln_threads_help "ON, OFF or AUTO (ON when pthreadpool is found, checked at every configure)")
# Build trees configured before AUTO existed cached the detection itself as a BOOL option with
# this help text: that stale value is the detection's, not the user's, so it becomes AUTO.
get_property(kiln_threads_old_help CACHE KILN_THREADS PROPERTY HELPSTRING)
if(kiln_threads_old_help STREQUAL "Run kernels on several threads through pthreadpool")
  set_property(CACHE KILN_THREADS PROPERTY VALUE AUTO)
  set_property(CACHE KILN_THREADS PROPERTY TYPE STRING)
  set_property(CACHE KILN_THREADS PROPERTY HELPSTRING "${kiln_threads_help}")
endif()
if(NOT DEFINED KILN_THREADS)  # the installed KilnConfig.cmake sets it to the install's choice
  set(KILN_THREADS AUTO CACHE STRING "${kiln_threads_help}")
endif()
if(KILN_THREADS STREQUAL "AUTO")
  # A plain variable over the cached AUTO: the detection is never written to the cache.
  set(KILN_THREADS ${kiln_pthreadpool_found})
endif()

if(KILN_THREADS AND NOT kiln_pthreadpool_found)
  message(FATAL_ERROR
    "KILN_THREADS is ON but pthreadpool was not found (pthreadpool.h: "
    "${KILN_PTHREADPOOL_INCLUDE_DIR}, library: ${KILN_PTHREADPOOL_LIBRARY}). Install it "
    "(apt-get install libpthreadpool-dev, or run tools/setup.sh), point "
    "KILN_PTHREADPOOL_INCLUDE_DIR and KILN_PTHREADPOOL_LIBRARY at it, or configure with "
    "-DKILN_THREADS=OFF for a single-threaded Kiln.")
endif()
if(NOT KILN_THREADS)
  message(STATUS "Kiln: KILN_THREADS is OFF (pthreadpool not found or disabled): kernels run on "
                 "one thread; install libpthreadpool-dev for multi-threaded kernels")
elseif(NOT TARGET Kiln::pthreadpool)
  find_package(Threads REQUIRED)
  add_library(Kiln::pthreadpool UNKNOWN IMPORTED)
  set_target_properties(Kiln::pthreadpool PROPERTIES
    IMPORTED_LOCATION "${KILN_PTHREADPOOL_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${KILN_PTHREADPOOL_INCLUDE_DIR}"
    INTERFACE_LINK_LIBRARIES Threads::Threads)
endif()
