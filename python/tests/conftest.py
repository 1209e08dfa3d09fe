# SPDX-License-Identifier: BSD-3-Clause
"""--no-skips: where every dependency is installed (CI), a skipped test is
a test that did not run, so it fails instead (a skipped module too).
Without it a skip stays a skip (a machine without h5py or the HDF5
helper)."""
import pytest


def pytest_addoption(parser):
    parser.addoption("--no-skips", action="store_true",
                     help="fail every skipped test (h5py, hdf5storage, the HDF5 helper all required)")


def _fail_skip(config, rep):
    if rep.skipped and config.getoption("--no-skips") and not hasattr(rep, "wasxfail"):
        rep.outcome = "failed"
        rep.longrepr = "skipped, and --no-skips is given: %s" % (rep.longrepr,)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_skip(item.config, outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_skip(collector.config, outcome.get_result())
