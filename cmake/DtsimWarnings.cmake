# Every dtsim target gets the same warnings and, when asked, the same sanitizers.
add_library(dtsim_options INTERFACE)
target_compile_options(dtsim_options INTERFACE -Wall -Wextra -Wpedantic -Wshadow)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12's optimiser reports std::string members of brace-initialised aggregates as maybe-uninitialized,
  # and std::string concatenation as overlapping memcpy (-Wrestrict): false positives fixed in GCC 13.
  # The sanitizer preset still catches real uninitialised reads and overlaps.
  target_compile_options(dtsim_options INTERFACE -Wno-maybe-uninitialized -Wno-restrict)
endif()
if(DTSIM_WERROR)
  target_compile_options(dtsim_options INTERFACE -Werror)
endif()
if(DTSIM_SANITIZE)
  target_compile_options(dtsim_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                 -fno-sanitize-recover=undefined)
  target_link_options(dtsim_options INTERFACE -fsanitize=address,undefined)
endif()
if(DTSIM_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "DTSIM_FUZZ needs clang++ (use the fuzz preset)")
  endif()
  target_compile_options(dtsim_options INTERFACE -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
                                                 -fno-sanitize-recover=undefined)
  target_link_options(dtsim_options INTERFACE -fsanitize=address,undefined)
endif()

# dtsim_library(NAME folder-target SOURCES ... DEPS ...): one static library per layer.
function(dtsim_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE dtsim_options)
endfunction()
