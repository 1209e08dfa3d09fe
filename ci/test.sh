#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The whole suite: install what is missing, then build and test twice
# (release with gcc; debug with clang under ASan and UBSan), check the
# committed corpus against numpy, and run the fuzz smoke when the fuzzers
# are available. Exits non-zero on the first failure.
set -euo pipefail
cd "$(dirname "$0")/.."
# Each stage's wall time, so that a slow CI run says where its minutes went.
stage_name="" stage_start=$SECONDS
stage() {
  [ -z "$stage_name" ] || echo "-- $stage_name: $((SECONDS - stage_start)) s"
  stage_name=$1 stage_start=$SECONDS
  [ -z "$1" ] || echo "== $1"
}
stage "install what is missing"
bash ci/install-deps.sh
jobs=$(nproc)
# Everything is installed here: a skipped test (ctest's exit 77, pytest's
# skip) is a test that did not run, and fails the run.
export NPYG_REQUIRE_ALL=1
run_ctest() {
  local log rc
  log=$(mktemp)
  set +e
  ctest --no-tests=error "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  if grep -q '\*\*\*Skipped\|tests did not run' "$log"; then
    echo "ci/test.sh: tests were skipped (above); every dependency is installed on CI" >&2
    rc=1
  fi
  rm -f "$log"
  return "$rc"
}

# The npyjs conformance adapter comes from the npm registry, pinned by its
# package-lock.json; without it that one test is skipped, not failed.
# So do read-npy-file (its numjs builds sharp against libvips-dev) and
# tfjs-npy. Only ctest needs them: they install (mostly waiting on the
# network) while the release tree builds, and ctest waits for them.
npm_install() {
  if command -v npm >/dev/null && [ -f conformance/adapters/npyjs/package-lock.json ]; then
    (cd conformance/adapters/npyjs && npm ci --no-audit --no-fund --silent) ||
      echo "note: npyjs did not install; conformance.npyjs will be skipped"
  fi
  for r in read-npy-file tfjs-npy; do
    if command -v npm >/dev/null && [ -f conformance/adapters/$r/package-lock.json ]; then
      (cd conformance/adapters/$r && npm ci --no-audit --no-fund --silent) ||
        echo "note: $r did not install; conformance.$r will be skipped"
    fi
  done
}
npm_log=$(mktemp)
npm_install >"$npm_log" 2>&1 &
npm_pid=$!

# The numpy and npyjs adapters start an interpreter per case: here they
# run every 4th case of the suite (conformance/tests/sample.sh), which
# keeps CI within its budget. numpy's verdict on every corpus file is
# re-read below (gen/verify_manifest.py); the published results
# (conformance/make-results.sh) run every case.
export NPYCONFORM_SAMPLE=4
stage "release build (gcc), ctest"
cmake --preset release -DNPYG_WERROR=ON >/dev/null
cmake --build --preset release -j "$jobs"
wait "$npm_pid"
cat "$npm_log"
rm -f "$npm_log"
run_ctest --preset release -j "$jobs"

stage "ASan + UBSan build (clang) with coverage, ctest"
# One instrumented pass serves both the sanitizers and the coverage gate
# below (the asan-coverage preset: the asan preset with clang's profile
# runtime, each process writing its profile under build/asan-coverage).
cmake --preset asan-coverage >/dev/null
cmake --build --preset asan-coverage -j "$jobs"
rm -rf build/asan-coverage/coverage
mkdir -p build/asan-coverage/coverage/profraw
# cli_gate runs npyvalidate as an unprivileged user: it writes a profile too.
chmod 1777 build/asan-coverage/coverage/profraw
# The numpy and npyjs adapters, the install test and the Python package
# (built by pip with the system's flags) are checked in the release pass;
# under the sanitizers they would only re-run Python, Node and a plain
# build for minutes. So would the broken-adapter test, whose adapters are
# shell scripts (the runner's C code is still under ASan in the other
# conformance runs). The HDF5 differential seed spends its minute in
# hdf5storage and h5py, which are the same either way.
# An ASan build does not cap the HDF5 child's memory (hdf5_cli_child_memory).
# npyguard's own conformance run starts an instrumented npyvalidate per
# case: every 4th case here (the release pass runs them all).
export NPYCONFORM_SAMPLE_NPYGUARD=4
# So does the fault-injection test: every 2nd file of each directory.
export NPYG_FAULTS_SAMPLE=2
run_ctest --preset asan-coverage -j "$jobs" -E 'conformance\.(numpy|npyjs|broken-adapters|read-npy-file|tfjs-npy|release)|install_consumers|python_package|fuzz_hdf5_differential_smoke|hdf5_cli_child_memory'
unset NPYCONFORM_SAMPLE_NPYGUARD NPYG_FAULTS_SAMPLE

# The corpus regeneration and numpy's re-read are Python on one core each,
# and the longest generator (gen_hdf5.py) runs on alone for a while: they
# start here, the ThreadSanitizer and coverage stages run beside them, and
# their stage below waits for them and reports. (The fuzzers themselves run
# alone, below: a harness gets its seconds of a whole core.)
verify_log=$(mktemp)
/usr/bin/python3 gen/verify_manifest.py >"$verify_log" 2>&1 &
verify_pid=$!
regen_log=$(mktemp)
bash gen/check_regen.sh >"$regen_log" 2>&1 &
regen_pid=$!
# So do the fuzz smoke's two instrumented trees: the smoke's own build is
# then up to date, and a build that fails here fails there, with its log.
fuzz_build_pid=
if [ -x ci/fuzz-smoke.sh ]; then
  (for e in libfuzzer afl; do sh fuzz/build.sh "$e" "$PWD/build-fuzz-$e" >/dev/null 2>&1 & done; wait) &
  fuzz_build_pid=$!
fi

stage "ThreadSanitizer: npyvalidate -j 4 and -j 16 over the corpus"
bash ci/tsan.sh

stage "coverage of parser/src from the ASan pass (fails below 99% of lines or 97% of branches)"
COVERAGE_BUILD_DIR=$PWD/build/asan-coverage COVERAGE_CTEST_DONE=1 bash ci/coverage.sh

stage "corpus (npy, npz, ra, hdf5, pickle) and numpy_cases.tsv: regenerate and compare, then re-read with numpy (begun before ThreadSanitizer)"
regen_rc=0
wait "$regen_pid" || regen_rc=$?
cat "$regen_log"
rm -f "$regen_log"
verify_rc=0
wait "$verify_pid" || verify_rc=$?
cat "$verify_log"
rm -f "$verify_log"
if [ "$regen_rc" != 0 ] || [ "$verify_rc" != 0 ]; then
  echo "== the corpus check failed (regeneration: exit $regen_rc, numpy's re-read: exit $verify_rc)"
  exit 1
fi

if [ -x ci/fuzz-smoke.sh ]; then
  stage "fuzz smoke"
  wait "$fuzz_build_pid" || true
  FUZZ_SECONDS=${FUZZ_SECONDS:-15} bash ci/fuzz-smoke.sh
fi
stage ""
echo "== all tests passed ($SECONDS s)"
