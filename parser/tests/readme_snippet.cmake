# SPDX-License-Identifier: BSD-3-Clause
# Fails unless EXAMPLE is, byte for byte, the ```c block of README.
# Usage: cmake -DREADME=... -DEXAMPLE=... -P readme_snippet.cmake
file(READ ${README} readme)
file(READ ${EXAMPLE} example)
# the file's licence line is the repository's, not the example's
string(REGEX REPLACE "^/\\* SPDX-License-Identifier: [^\n]*\\*/\n" "" example "${example}")
string(FIND "${readme}" "\n```c\n" start)
if(start EQUAL -1)
  message(FATAL_ERROR "${README} has no ```c block")
endif()
math(EXPR start "${start} + 6")
string(SUBSTRING "${readme}" ${start} -1 rest)
string(FIND "${rest}" "\n```\n" end)
if(end EQUAL -1)
  message(FATAL_ERROR "${README}: the ```c block does not end")
endif()
math(EXPR end "${end} + 1")
string(SUBSTRING "${rest}" 0 ${end} snippet)
if(NOT snippet STREQUAL example)
  message(FATAL_ERROR "${EXAMPLE} is not, byte for byte, the ```c block of ${README}")
endif()
message(STATUS "readme_example.c is the README's C example (${end} bytes)")
