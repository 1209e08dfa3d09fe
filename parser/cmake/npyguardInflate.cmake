# SPDX-License-Identifier: BSD-3-Clause
# ISA-L (Debian libisal-dev) and libdeflate (Debian libdeflate-dev) as the
# imported targets npyguard::isal and npyguard::libdeflate, found with
# pkg-config and, failing that, by header and library name. Included by
# the build and, installed beside npyguardConfig.cmake, by the users of a
# static libnpyguard.a.
find_package(PkgConfig QUIET)
foreach(_npyg_dep isal libdeflate)
  if(TARGET npyguard::${_npyg_dep})
    continue()
  endif()
  if(_npyg_dep STREQUAL "isal")
    set(_npyg_pc libisal)
    set(_npyg_hdr isa-l/igzip_lib.h)
    set(_npyg_lib isal)
  else()
    set(_npyg_pc libdeflate)
    set(_npyg_hdr libdeflate.h)
    set(_npyg_lib deflate)
  endif()
  if(PkgConfig_FOUND)
    pkg_check_modules(NPYG_PC_${_npyg_dep} QUIET ${_npyg_pc})
  endif()
  find_path(NPYG_${_npyg_dep}_INCLUDE_DIR ${_npyg_hdr} HINTS ${NPYG_PC_${_npyg_dep}_INCLUDE_DIRS})
  find_library(NPYG_${_npyg_dep}_LIBRARY NAMES ${_npyg_lib} HINTS ${NPYG_PC_${_npyg_dep}_LIBRARY_DIRS})
  if(NPYG_${_npyg_dep}_INCLUDE_DIR AND NPYG_${_npyg_dep}_LIBRARY)
    add_library(npyguard::${_npyg_dep} UNKNOWN IMPORTED)
    set_target_properties(npyguard::${_npyg_dep} PROPERTIES
      IMPORTED_LOCATION "${NPYG_${_npyg_dep}_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${NPYG_${_npyg_dep}_INCLUDE_DIR}")
  endif()
endforeach()
