# Builds the probe target PROBE in BUILD_DIR and succeeds only if the compile fails because
# HEADER cannot be found (GCC: "No such file or directory"; clang: "file not found"), within
# TIMEOUT seconds. Run by ctest (tests/layering/CMakeLists.txt).
execute_process(
  COMMAND ${CMAKE_COMMAND} --build ${BUILD_DIR} --target ${PROBE}
  RESULT_VARIABLE result
  OUTPUT_VARIABLE output
  ERROR_VARIABLE output
  TIMEOUT ${TIMEOUT})
if(result EQUAL 0)
  message(FATAL_ERROR "${PROBE} compiled: its layer can include ${HEADER}, which belongs to a "
                      "layer above it (cmake/TesseraLayers.cmake)")
endif()
string(REGEX REPLACE "([.+])" "\\\\\\1" header_pattern "${HEADER}")
if(NOT output MATCHES "${header_pattern}: (No such file or directory|file not found)"
   AND NOT output MATCHES "'${header_pattern}' file not found")
  message(FATAL_ERROR "${PROBE} failed, but not because ${HEADER} is missing "
                      "(result: ${result}):\n${output}")
endif()
message(STATUS "${PROBE}: ${HEADER} is not visible, as it must be")
