# SPDX-License-Identifier: BSD-3-Clause
# liblz4 as the imported target npyguard::lz4. Included by the build and,
# installed beside npyguardConfig.cmake, by every consumer, so that a static
# libnpyguard.a names a dependency its users can find, not a path on the
# machine that built it. liblz4 ships no CMake package on Debian 12.
if(NOT TARGET npyguard::lz4)
  find_path(NPYG_LZ4_INCLUDE_DIR lz4.h)
  find_library(NPYG_LZ4_LIBRARY lz4)
  if(NPYG_LZ4_INCLUDE_DIR AND NPYG_LZ4_LIBRARY)
    add_library(npyguard::lz4 UNKNOWN IMPORTED)
    set_target_properties(npyguard::lz4 PROPERTIES
      IMPORTED_LOCATION "${NPYG_LZ4_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${NPYG_LZ4_INCLUDE_DIR}")
  endif()
endif()
