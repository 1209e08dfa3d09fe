#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# corpus/hdf5/ alone: gen/check_regen.sh's hdf5 set (its README names this
# script, and corpus/hdf5/README.md is written by gen_hdf5.py).
exec sh "$(dirname "$0")/check_regen.sh" hdf5
