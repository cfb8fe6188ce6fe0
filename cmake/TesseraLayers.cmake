# The engine's layers, one static library each, in dependency order (docs/development.md):
#
#   server → sql → query → index → dataset → expr → format → io → util
#
# Layer <L> is the target tessera_<L>, built from every .cc under src/tessera/<L>/ (globbed, so
# new files need no CMake edit; util also owns src/tessera/status.{h,cc}). It links the layer
# right below it, so it may use everything below and nothing above.
#
# Links alone would only catch an upward dependency when a binary is linked, if at all. So each
# layer compiles against its own staged include directory, ${CMAKE_BINARY_DIR}/layers/<L>/,
# made at configure time: tessera/<K> there is a symbolic link to src/tessera/<K> for <L> and
# every layer below it, and nothing else. `#include "tessera/query/..."` in src/tessera/index/
# is then "No such file or directory" (tests/layering proves it). Headers added to a layer's
# directory appear through the link at once. Consumers that are not layers (the CLI, tests,
# bench, fuzz targets, examples) link the convenience target `tessera`, which sees src/: every
# header.

set(TESSERA_LAYERS util io format expr dataset index query sql server)
set(TESSERA_LAYER_STAGE ${CMAKE_BINARY_DIR}/layers)

# Every directory under src/tessera is a layer: code in a folder no layer names would be built
# by no target (and seen by none), so the configure step says so.
file(GLOB _tessera_entries LIST_DIRECTORIES true RELATIVE ${CMAKE_SOURCE_DIR}/src/tessera
     ${CMAKE_SOURCE_DIR}/src/tessera/*)
foreach(_entry ${_tessera_entries})
  if(IS_DIRECTORY ${CMAKE_SOURCE_DIR}/src/tessera/${_entry} AND NOT _entry IN_LIST TESSERA_LAYERS)
    message(FATAL_ERROR "src/tessera/${_entry}/ belongs to no layer: add it to TESSERA_LAYERS "
                        "in cmake/TesseraLayers.cmake, in dependency order, or move its files "
                        "into the layer they belong to")
  endif()
  if(_entry MATCHES "\\.cc$" AND NOT _entry STREQUAL "status.cc")
    message(FATAL_ERROR "src/tessera/${_entry} belongs to no layer: move it into the folder of "
                        "its layer (cmake/TesseraLayers.cmake)")
  endif()
endforeach()

# A symbolic link `link` → `target`; a link from an earlier configure is kept if it points there.
function(tessera_stage_link target link)
  if(IS_SYMLINK ${link})
    file(READ_SYMLINK ${link} _current)
    if(_current STREQUAL target)
      return()
    endif()
    file(REMOVE ${link})
  endif()
  get_filename_component(_parent ${link} DIRECTORY)
  file(MAKE_DIRECTORY ${_parent})
  file(CREATE_LINK ${target} ${link} SYMBOLIC RESULT _result)
  if(NOT _result EQUAL 0)
    message(FATAL_ERROR "cannot link ${link} to ${target}: ${_result}")
  endif()
endfunction()

# tessera_add_layer(<layer> [LIBRARIES <public dependency>...] [PRIVATE_LIBRARIES <dep>...])
function(tessera_add_layer layer)
  cmake_parse_arguments(ARG "" "" "LIBRARIES;PRIVATE_LIBRARIES" ${ARGN})
  list(FIND TESSERA_LAYERS ${layer} _position)
  if(_position LESS 0)
    message(FATAL_ERROR "tessera_add_layer: '${layer}' is not in TESSERA_LAYERS")
  endif()
  set(_stage ${TESSERA_LAYER_STAGE}/${layer})
  foreach(_index RANGE ${_position})
    list(GET TESSERA_LAYERS ${_index} _visible)
    tessera_stage_link(${CMAKE_SOURCE_DIR}/src/tessera/${_visible} ${_stage}/tessera/${_visible})
  endforeach()
  tessera_stage_link(${CMAKE_SOURCE_DIR}/src/tessera/status.h ${_stage}/tessera/status.h)

  file(GLOB_RECURSE _sources CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/src/tessera/${layer}/*.cc)
  if(layer STREQUAL "util")
    list(APPEND _sources ${CMAKE_SOURCE_DIR}/src/tessera/status.cc)
  endif()
  add_library(tessera_${layer} STATIC ${_sources})
  target_include_directories(tessera_${layer} PUBLIC ${_stage})
  if(_position GREATER 0)
    math(EXPR _below "${_position} - 1")
    list(GET TESSERA_LAYERS ${_below} _lower)
    target_link_libraries(tessera_${layer} PUBLIC tessera_${_lower})
  endif()
  target_link_libraries(tessera_${layer} PUBLIC ${ARG_LIBRARIES} PRIVATE ${ARG_PRIVATE_LIBRARIES})
endfunction()
