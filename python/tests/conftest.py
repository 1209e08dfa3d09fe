# SPDX-License-Identifier: BSD-3-Clause
"""--no-skips: where every dependency is installed (CI), a skipped test is
a test that did not run, so the run fails. Without it a skip stays a skip
(a machine without h5py or the HDF5 helper)."""


def pytest_addoption(parser):
    parser.addoption("--no-skips", action="store_true",
                     help="fail the run if any test is skipped (h5py, hdf5storage, the HDF5 helper all required)")


def pytest_sessionfinish(session, exitstatus):
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if session.config.getoption("--no-skips") and skipped and exitstatus == 0:
        print("\n--no-skips: %d test(s) skipped; each needs something this machine should have" % skipped)
        session.exitstatus = 1
