# Build information printed by `gotraced --version`.
execute_process(COMMAND git -C ${CMAKE_SOURCE_DIR} rev-parse --short=12 HEAD
  OUTPUT_VARIABLE GOTRACED_GIT_REV OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT GOTRACED_GIT_REV)
  set(GOTRACED_GIT_REV "unknown")
endif()
configure_file(${CMAKE_SOURCE_DIR}/cli/build_info.h.in ${CMAKE_BINARY_DIR}/generated/build_info.h @ONLY)
include_directories(${CMAKE_BINARY_DIR}/generated)
