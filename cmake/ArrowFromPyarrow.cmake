# Arrow C++ and Parquet come from the pinned pyarrow wheel in the repo's venv (docs/design.md,
# "Dependencies and hand-written parts"): its bundled headers and shared libraries.
# scripts/bootstrap.sh installs the venv.
set(TESSERA_PYTHON "${CMAKE_SOURCE_DIR}/.venv/bin/python" CACHE FILEPATH
    "Python of the venv whose pyarrow provides Arrow C++")
if(NOT EXISTS "${TESSERA_PYTHON}")
  message(FATAL_ERROR "No venv python at ${TESSERA_PYTHON}: run scripts/bootstrap.sh first")
endif()
execute_process(
  COMMAND "${TESSERA_PYTHON}" -c "import pyarrow; print(pyarrow.get_include()); print(pyarrow.get_library_dirs()[0])"
  OUTPUT_VARIABLE _pyarrow_paths OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _pyarrow_rc)
if(NOT _pyarrow_rc EQUAL 0)
  message(FATAL_ERROR "pyarrow is not importable from ${TESSERA_PYTHON}: run scripts/bootstrap.sh")
endif()
string(REPLACE "\n" ";" _pyarrow_paths "${_pyarrow_paths}")
list(GET _pyarrow_paths 0 ARROW_INCLUDE_DIR)
list(GET _pyarrow_paths 1 ARROW_LIBRARY_DIR)
message(STATUS "Arrow C++ from pyarrow: ${ARROW_LIBRARY_DIR}")

foreach(_lib arrow arrow_compute arrow_acero arrow_dataset parquet arrow_s3)
  set(_path "${ARROW_LIBRARY_DIR}/lib${_lib}.so")
  if(NOT EXISTS "${_path}")
    # A wheel ships only libarrow.so.NNNN (scripts/bootstrap.sh adds the unversioned links to
    # the repo's venv; a wheel build's isolated environment has none): link the versioned file.
    file(GLOB _versioned "${ARROW_LIBRARY_DIR}/lib${_lib}.so.*")
    list(SORT _versioned)
    list(LENGTH _versioned _count)
    if(_count EQUAL 0)
      message(FATAL_ERROR "${_path} is missing: run scripts/bootstrap.sh (it creates the symlinks)")
    endif()
    list(GET _versioned 0 _path)
  endif()
  add_library(pyarrow::${_lib} SHARED IMPORTED)
  set_target_properties(pyarrow::${_lib} PROPERTIES
    IMPORTED_LOCATION "${_path}"
    INTERFACE_INCLUDE_DIRECTORIES "${ARROW_INCLUDE_DIR}"
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${ARROW_INCLUDE_DIR}")
endforeach()
# Binaries find the wheel's libraries without LD_LIBRARY_PATH.
list(APPEND CMAKE_BUILD_RPATH "${ARROW_LIBRARY_DIR}")
