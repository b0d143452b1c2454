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
# A layer sees only its own folder and the folders of the layers it links (transitively): each library's
# include directory is a tree holding one link, `<folder> -> the source folder`, so `#include
# "sim/runtime/x.hpp"` from a layer below sim/runtime fails to compile instead of creating an upward edge.
function(dtsim_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  if(DTSIM_PYTHON)
    # The Python module links every layer into a shared object. -fno-semantic-interposition keeps calls
    # between the layers as direct as in the dtsim executable.
    set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
    target_compile_options(${name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-semantic-interposition>)
  endif()
  dtsim_layer_includes(${name} ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE dtsim_options)
endfunction()

# The include tree of library NAME, whose headers lie in FOLDER (see dtsim_library).
function(dtsim_layer_includes name folder)
  file(RELATIVE_PATH relative ${PROJECT_SOURCE_DIR} ${folder})
  set(tree ${PROJECT_BINARY_DIR}/layers/${name})
  get_filename_component(parent ${tree}/${relative} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(NOT EXISTS ${tree}/${relative})
    file(CREATE_LINK ${folder} ${tree}/${relative} SYMBOLIC)
  endif()
  target_include_directories(${name} PUBLIC ${tree})
endfunction()
