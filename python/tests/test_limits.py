# SPDX-License-Identifier: BSD-3-Clause
"""Every limit keyword of the package: its name, default and range are the
C library's (npyguard.h's documented NPYG_DEFAULT_* values and caps,
spelled here by hand), each is accepted at both ends of its range, and a
value past either end, of the wrong type or under a name the package does
not take is refused with an error that names it."""
import io
import re

import numpy as np
import pytest

import npyguard

U32, U64 = 2**32 - 1, 2**64 - 1

# name: (default, smallest, largest); max_alloc_bytes' smallest is the
# library's context size, checked on its own below
DOCUMENTED = {
    "max_header_bytes": (10000, 1, 1 << 28), "max_dims": (64, 1, U32), "max_fields": (4096, 1, U32),
    "max_depth": (32, 1, 64), "max_alloc_bytes": (8 << 20, None, U64), "max_payload_bytes": (1 << 40, 0, U64),
    "max_members": (4096, 0, 1000000), "max_name_bytes": (512, 1, 65535),
    "max_total_uncompressed": (1 << 40, 0, U64), "max_ratio": (100, 1, U64),
    "ratio_grace_bytes": (64 << 20, 0, U64), "inflate_budget_bytes": (64 << 20, 0, U64),
}

# npyvalidate's limits for what the package does not do (scan a pickle,
# scan HDF5): not keywords here
NOT_KEYWORDS = ["max_pickle_bytes", "max_pickle_ops", "max_pickle_memo", "max_pickle_stack",
                "max_pickle_string_bytes", "max_pickle_imports", "max_objects", "max_nesting", "max_paths",
                "max_ref_depth", "hdf5_memory_bytes", "hdf5_cpu_seconds", "hdf5_wall_seconds", "max_load_bytes"]


def _saved(arr):
    buf = io.BytesIO()
    np.save(buf, arr)
    return buf.getvalue()


DATA = _saved(np.arange(3))


def test_the_keywords_are_the_documented_limits():
    assert set(npyguard.LIMITS) == set(DOCUMENTED)
    for name, (default, lo, hi) in DOCUMENTED.items():
        assert npyguard.LIMITS[name] == default, name
        got_lo, got_hi = npyguard.LIMIT_RANGES[name]
        assert got_hi == hi and (lo is None or got_lo == lo), name
    lo = npyguard.LIMIT_RANGES["max_alloc_bytes"][0]
    assert 0 < lo <= 4096  # the context itself, a few hundred bytes


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_each_keyword_takes_both_ends_of_its_range(name):
    lo, hi = npyguard.LIMIT_RANGES[name]
    for v in (lo, hi):
        try:
            npyguard.validate(DATA, **{name: v})
        except npyguard.Error:
            pass  # a verdict under that limit (max_header_bytes=1 refuses the file): the value was taken
        assert npyguard.worst_case_alloc(**{name: v}) > 0


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_each_keyword_past_its_range_is_refused_by_name(name):
    lo, hi = npyguard.LIMIT_RANGES[name]
    for bad in ([lo - 1] if lo else []) + [hi + 1]:
        for call in (npyguard.load, npyguard.validate, npyguard.load_npz):
            with pytest.raises(ValueError, match=re.escape(name)) as ei:
                call(DATA, **{name: bad})
            assert f"{lo}..{hi}" in str(ei.value)


@pytest.mark.parametrize("name", NOT_KEYWORDS)
def test_other_formats_limits_are_not_keywords(name):
    with pytest.raises(TypeError, match=re.escape(name)):
        npyguard.load(DATA, **{name: 1})


def test_a_keyword_reaches_the_library():
    # the header numpy writes for arange(3) is 118 bytes (v1.0, padded to 128)
    with pytest.raises(npyguard.LimitError) as ei:
        npyguard.load(DATA, max_header_bytes=117)
    assert ei.value.name == "NPYG_ELIMIT_HEADER"
    np.testing.assert_array_equal(npyguard.load(DATA, max_header_bytes=118), np.arange(3))
