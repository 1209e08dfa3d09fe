# SPDX-License-Identifier: BSD-3-Clause
"""npyguard's decoder of hdf5storage's conventions (npyguard._matlab),
held to what hdf5storage itself returned for every valid corpus file, as
gen/gen_hdf5.py and gen/gen_matlab_style.py recorded it through
gen/h5describe.py; and its refusals of trees that would make a reader
allocate from a declaration, loop or read nothing."""
import json
import os
import sys
import tracemalloc

import numpy as np
import pytest

import npyguard
from npyguard._h5tree import Empty, Node, Ref
from npyguard._matlab import loadmat_tree, read_tree

from corpus_files import CORPUS, ROOT, hdf5_helper

sys.path.insert(0, os.path.join(ROOT, "gen"))
from h5describe import describe  # noqa: E402  (the generators' describer, one definition)

HDF5 = os.path.join(CORPUS, "hdf5")




def tree_of(path):
    """The tree the decoder reads: npyguard's own sandboxed transfer when
    the package has it and the helper is built, else the same tree built
    by h5py (python/tests/h5tree_h5py.py)."""
    try:
        from npyguard._hdf5 import load_tree
    except ImportError:
        load_tree = None
    helper = hdf5_helper()
    if load_tree is not None and helper is not None:
        return load_tree(path, helper=helper)
    pytest.importorskip("h5py")
    from h5tree_h5py import tree_from_h5py
    return tree_from_h5py(path)


def _recorded():
    """(group, relative path, manifest entry) of every file whose entry
    records what hdf5storage.read('/') and loadmat returned."""
    out = []
    for group, manifest in (("", os.path.join(HDF5, "manifest.json")),
                            ("matlab/", os.path.join(HDF5, "matlab", "manifest.json"))):
        with open(manifest) as f:
            for rel, entry in sorted(json.load(f)["files"].items()):
                if "hdf5storage_loadmat" in entry:
                    out.append((group + rel, entry))
    return out


RECORDED = _recorded()


def _on_disk(*parts):
    top = os.path.join(HDF5, *parts)
    return sorted(os.path.relpath(os.path.join(d, n), HDF5) for d, _, names in os.walk(top) for n in names)


def test_every_valid_file_has_a_record():
    """The valid groups and the MATLAB-style files, every one recorded:
    58 MAT files and 59 plain HDF5 files written by hdf5storage, 7 files
    laid out as MATLAB writes them, and the 16 files whose attributes
    hdf5storage reads against their word."""
    have = {rel for rel, _ in RECORDED}
    valid = _on_disk("valid") + _on_disk("matlab", "valid")
    assert len(_on_disk("valid", "mat")) == 58
    assert len(_on_disk("valid", "h5")) == 59
    assert len(_on_disk("matlab", "valid")) == 7
    assert len(_on_disk("matlab", "findings")) == 16
    assert set(valid) <= have
    assert len(RECORDED) == 58 + 59 + 7 + 16


def _described(call):
    """describe(call()), as JSON holds it, or the exception's name."""
    try:
        return json.loads(json.dumps(describe(call())))
    except npyguard.Error as e:
        return {"exception": type(e).__name__}


@pytest.mark.parametrize("rel,entry", RECORDED, ids=[rel for rel, _ in RECORDED])
def test_decoded_as_hdf5storage_returns(rel, entry):
    """loadmat_tree and read_tree(tree, '/') give what hdf5storage.loadmat
    and hdf5storage.read('/') gave: types, dtypes, shapes, bytes."""
    tree = tree_of(os.path.join(HDF5, rel))
    assert "exception" not in entry["hdf5storage_loadmat"]
    assert _described(lambda: loadmat_tree(tree)) == entry["hdf5storage_loadmat"]
    assert "exception" not in entry["hdf5storage_read_root"]
    assert _described(lambda: read_tree(tree, "/")) == entry["hdf5storage_read_root"]


def test_one_object_as_hdf5storage_reads_it():
    """read_tree of one path: a dict of hdf5storage's types, by value."""
    tree = tree_of(os.path.join(HDF5, "valid", "h5", "dict.h5"))
    v = read_tree(tree, "/v")
    assert type(v) is dict and list(v) == ["a", "b"]
    assert type(v["a"]) is int and v["a"] == 1
    assert v["b"].dtype == np.dtype("<f8") and v["b"].tolist() == [0.0, 1.0, 2.0]
    tree = tree_of(os.path.join(HDF5, "valid", "mat", "str.mat"))
    assert read_tree(tree, "/v") == "hello"


# ------------------------------------------------------------ crafted trees

def _ascii(text: str) -> np.ndarray:
    return np.array(text.encode(), dtype="S%d" % max(len(text), 1))


def _fields(*names) -> np.ndarray:
    out = np.empty(len(names), dtype=object)
    for i, n in enumerate(names):
        out[i] = np.frombuffer(n.encode(), dtype="S1")
    return out


def _refs(*paths) -> np.ndarray:
    out = np.empty((len(paths), 1), dtype=object)
    for i, p in enumerate(paths):
        out[i, 0] = Ref(p)
    return out


def _tree(**objects) -> dict:
    """A file's tree: keyword name -> Node of a top-level object (names
    with '__' stand for '/', so '#refs#__a' is /#refs#/a)."""
    tree = {"/": Node("group")}
    for key, node in objects.items():
        path = "/" + key.replace("__", "/")
        parent = path.rsplit("/", 1)[0] or "/"
        tree.setdefault(parent, Node("group"))
        tree[path] = node
    for path, node in tree.items():
        if node.kind == "group":
            prefix = path.rstrip("/") + "/"
            node.children = tuple(sorted({p[len(prefix):] for p in tree
                                          if p.startswith(prefix) and "/" not in p[len(prefix):] and p != path},
                                         key=lambda s: s.encode()))
    return tree


def _python_empty(shape, utype="float64"):
    """A value hdf5storage marks empty, whose Python.Shape is `shape`."""
    return Node("dataset", {
        "Python.Type": _ascii("numpy.ndarray"), "Python.numpy.UnderlyingType": _ascii(utype),
        "Python.numpy.Container": _ascii("ndarray"), "Python.Shape": np.array(shape, dtype=np.uint64),
        "Python.Empty": np.array(1, dtype=np.uint8)}, value=np.array(shape[::-1], dtype=np.uint64))


def _matlab_empty(dims, mclass="double"):
    """A MATLAB empty value: its dimensions stored, MATLAB_empty 1."""
    return Node("dataset", {"MATLAB_class": _ascii(mclass), "MATLAB_empty": np.array(1, dtype=np.uint8)},
                value=np.array(dims, dtype=np.uint64))


def _peak(call):
    """(what call raised, the most memory it held at once)."""
    tracemalloc.start()
    try:
        with pytest.raises(npyguard.Error) as info:
            call()
        return info.value, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_declared_shape_of_2_40_elements_is_refused_before_allocating():
    """Python.Shape and MATLAB_empty are what hdf5storage hands to
    np.zeros: 2**40 float64 (8 TiB) is over the default max_payload_bytes
    (1 TiB) and refused with nothing allocated."""
    big = [1 << 20, 1 << 20]
    for tree, call in ((_tree(x=_python_empty(big)), read_tree),
                       (_tree(x=_matlab_empty(big)), loadmat_tree)):
        e, peak = _peak(lambda: call(tree))
        assert isinstance(e, npyguard.LimitError) and e.name == "NPYG_ELIMIT_PAYLOAD"
        assert e.member == "/x" and "/x" in str(e)
        assert peak < 1 << 20
    for utype in ("bytes8", "str32"):
        e, peak = _peak(lambda: read_tree(_tree(x=_python_empty([1 << 20, 1 << 21], utype))))
        assert e.name == "NPYG_ELIMIT_PAYLOAD" and peak < 1 << 20


def test_zeros_from_a_declaration_count_against_the_inflate_budget():
    """1 GiB of zeros declared by a few bytes: within max_payload_bytes but
    over the inflation budget .npz members have (NPYG_EHDF5_INFLATE, of
    the library's class "limit");
    a larger budget lets the same value through, shaped as declared."""
    e, peak = _peak(lambda: read_tree(_tree(x=_python_empty([1 << 27]))))
    assert isinstance(e, npyguard.LimitError) and e.name == "NPYG_EHDF5_INFLATE" and e.member == "/x"
    assert peak < 1 << 20
    v = read_tree(_tree(x=_python_empty([3, 0])), "/x")
    assert v.shape == (3, 0) and v.dtype == np.float64
    with pytest.raises(npyguard.LimitError, match="inflate_budget_bytes"):
        read_tree(_tree(x=_python_empty([3, 4])), inflate_budget_bytes=64)
    with pytest.raises(npyguard.LimitError):
        read_tree(_tree(x=_python_empty([3, 4])), max_payload_bytes=64)
    assert read_tree(_tree(x=_python_empty([3, 4])), "/x", inflate_budget_bytes=96).shape == (3, 4)


def test_struct_array_as_long_as_its_longest_field_is_counted():
    """A struct array (a group whose members are reference datasets) is
    made as long as its last field, each element as wide as every field:
    a 128 KiB field and a last field of 2**14 references to one empty
    value would make 2 GiB from 128 KiB of values: over max_payload_bytes
    when that is 1 GiB, and over the inflation budget whatever it is."""
    refs = Node("dataset", value=np.empty((1 << 14, 1), dtype=object))
    refs.value[:] = Ref("/#refs#/a")
    tree = _tree(s=Node("group", {"MATLAB_class": _ascii("struct")}),
                 s__big=Node("dataset", value=_refs("/#refs#/big")), s__z=refs,
                 **{"#refs#__a": _matlab_empty([0, 0], "canonical empty"),
                    "#refs#__big": Node("dataset", {"MATLAB_class": _ascii("uint8")},
                                        value=np.zeros((1, 1 << 17), np.uint8))})
    with pytest.raises(npyguard.LimitError) as info:
        read_tree(tree, "/s", max_payload_bytes=1 << 30, inflate_budget_bytes=1 << 32, max_paths=1 << 15)
    assert info.value.name == "NPYG_ELIMIT_PAYLOAD" and info.value.member == "/s"
    with pytest.raises(npyguard.LimitError) as info:
        read_tree(tree, "/s")
    assert info.value.name == "NPYG_EHDF5_INFLATE" and info.value.member == "/s"
    with pytest.raises(npyguard.LimitError) as info:
        read_tree(tree, "/s", max_paths=1000)
    assert info.value.name == "NPYG_ELIMIT_PATHS"


def test_reference_to_nothing_names_the_dataset():
    tree = _tree(c=Node("dataset", {"MATLAB_class": _ascii("cell")}, value=_refs("/#refs#/gone")),
                 **{"#refs#__a": _matlab_empty([0, 0], "canonical empty")})
    for call in (lambda: loadmat_tree(tree), lambda: read_tree(tree, "/c")):
        with pytest.raises(npyguard.UnsafeError) as info:
            call()
        assert info.value.name == "NPYG_EHDF5_REFDANGLE" and info.value.member == "/c"
        assert "/#refs#/gone" in info.value.message
    tree["/c"].value[0, 0] = Ref("")
    with pytest.raises(npyguard.UnsafeError, match="null reference") as info:
        loadmat_tree(tree)
    assert info.value.member == "/c"


def test_cycle_of_references_is_refused():
    """/c -> /#refs#/a -> /#refs#/b -> /#refs#/a: hdf5storage recurses
    until RecursionError; the decoder names the object it re-enters."""
    cell = {"MATLAB_class": _ascii("cell")}
    tree = _tree(c=Node("dataset", dict(cell), value=_refs("/#refs#/a")),
                 **{"#refs#__a": Node("dataset", dict(cell), value=_refs("/#refs#/b")),
                    "#refs#__b": Node("dataset", dict(cell), value=_refs("/#refs#/a"))})
    with pytest.raises(npyguard.UnsafeError) as info:
        loadmat_tree(tree)
    assert info.value.name == "NPYG_EHDF5_REFCYCLE" and info.value.member == "/#refs#/a"


def test_chain_of_references_deeper_than_the_limit():
    cell = {"MATLAB_class": _ascii("cell")}
    objects = {"#refs#__r%d" % i: Node("dataset", dict(cell), value=_refs("/#refs#/r%d" % (i + 1)))
               for i in range(40)}
    objects["#refs#__r40"] = Node("dataset", {"MATLAB_class": _ascii("double")}, value=np.ones((1, 1)))
    tree = _tree(c=Node("dataset", dict(cell), value=_refs("/#refs#/r0")), **objects)
    with pytest.raises(npyguard.LimitError) as info:
        loadmat_tree(tree)
    assert info.value.name == "NPYG_ELIMIT_REFDEPTH"
    v = loadmat_tree(tree, max_ref_depth=64)["c"]
    for _ in range(40):
        v = v[0, 0]
    assert v.tolist() == [[1.0]]


def test_soft_link_loop_is_refused():
    tree = _tree(a=Node("link", value="/b"), b=Node("link", value="/a"))
    with pytest.raises(npyguard.UnsafeError) as info:
        loadmat_tree(tree)
    assert info.value.name == "NPYG_EHDF5_SOFTLINK" and info.value.member in ("/a", "/b")


def _struct_missing_field():
    """A struct whose MATLAB_fields names 'b', which it does not hold."""
    return _tree(s=Node("group", {"MATLAB_class": _ascii("struct"), "MATLAB_fields": _fields("a", "b")}),
                 s__a=Node("dataset", {"MATLAB_class": _ascii("double")}, value=np.ones((1, 1))),
                 x=Node("dataset", {"MATLAB_class": _ascii("double")}, value=np.full((1, 1), 2.0)))


def test_struct_fields_that_disagree_with_its_members(tmp_path):
    """read_tree refuses the struct, naming it; loadmat leaves it out as
    hdf5storage.loadmat does with the same file (which h5py writes here)."""
    with pytest.raises(npyguard.NotLoadableError) as info:
        read_tree(_struct_missing_field(), "/s")
    assert info.value.member == "/s" and "'b'" in info.value.message
    got = loadmat_tree(_struct_missing_field())
    assert list(got) == ["x"] and got["x"].tolist() == [[2.0]]
    h5py = pytest.importorskip("h5py")
    hdf5storage = pytest.importorskip("hdf5storage")
    path = str(tmp_path / "fields.mat")
    with h5py.File(path, "w") as f:
        s = f.create_group("s")
        s.attrs["MATLAB_class"] = np.bytes_(b"struct")
        s.attrs.create("MATLAB_fields", _fields("a", "b"), dtype=h5py.vlen_dtype(np.dtype("S1")))
        s.create_dataset("a", data=np.ones((1, 1))).attrs["MATLAB_class"] = np.bytes_(b"double")
        f.create_dataset("x", data=np.full((1, 1), 2.0)).attrs["MATLAB_class"] = np.bytes_(b"double")
    assert describe(hdf5storage.loadmat(path)) == describe(got)


def test_limits_are_checked_by_name_and_type():
    with pytest.raises(TypeError, match="max_things"):
        loadmat_tree(_tree(), max_things=3)
    with pytest.raises(TypeError, match="max_paths"):
        loadmat_tree(_tree(), max_paths=3.0)
    with pytest.raises(ValueError, match="max_ref_depth"):
        loadmat_tree(_tree(), max_ref_depth=-1)
    assert loadmat_tree(_tree(), max_paths=np.int64(3)) == {}


def test_public_functions_through_the_transfer():
    """loadmat and load_hdf5 over npyguard's own transfer, once the
    package has it."""
    _hdf5 = pytest.importorskip("npyguard._hdf5")
    helper = hdf5_helper()
    if not hasattr(_hdf5, "load_tree") or helper is None:
        pytest.skip("no npyguard._hdf5.load_tree, or no npyg-hdf5-helper built")
    from npyguard._matlab import load_hdf5, loadmat
    for rel, entry in RECORDED:
        path = os.path.join(HDF5, rel)
        assert _described(lambda: loadmat(path, helper=helper)) == entry["hdf5storage_loadmat"], rel
        assert _described(lambda: load_hdf5(path, helper=helper)) == entry["hdf5storage_read_root"], rel


def test_empty_tree_values_are_not_arrays():
    """A dataset with a null dataspace is no value hdf5storage can read."""
    tree = _tree(x=Node("dataset", {"MATLAB_class": _ascii("double")}, value=Empty(np.dtype("<f8"))))
    assert loadmat_tree(tree) == {}
    with pytest.raises(npyguard.NotLoadableError) as info:
        read_tree(tree, "/x")
    assert info.value.member == "/x"


# hazard files whose every object h5py reads (the others, such as external
# links or a hard-link cycle, never become a tree)
HAZARDS_READ = ["deep.h5", "empty-huge.h5", "empty-matlab.mat", "empty-zeros.h5", "ref-chain.h5", "ref-cycle.h5",
                "ref-null.h5", "soft-ancestor.h5", "soft-chain.h5", "soft-dangling.h5", "soft-loop.h5"]


@pytest.mark.parametrize("name", HAZARDS_READ)
def test_hazard_refused_with_a_code_the_scan_gives(name):
    """Loading a hazard file (the tree, then the decoding) raises one of
    the codes npyvalidate reports for it (corpus/hdf5/manifest.json),
    whichever stage refuses it, and never a bare Python exception."""
    entry = next(e for rel, e in _manifest_hdf5().items() if rel == "hazard/" + name)
    codes = {code for code, _ in entry["hazards"]}
    path = os.path.join(HDF5, "hazard", name)
    for decode in (loadmat_tree, read_tree):
        with pytest.raises(npyguard.Error) as info:
            decode(tree_of(path))
        assert info.value.code in codes, (decode.__name__, info.value)
        assert info.value.message.startswith("/")  # the object path first


def _manifest_hdf5():
    with open(os.path.join(HDF5, "manifest.json")) as f:
        return json.load(f)["files"]


def test_each_read_is_a_new_array():
    """hdf5storage reads a value twice as two arrays: a cell whose two
    elements reference one dataset gives two arrays, neither the tree's
    own unless the tree is handed over (owned=True)."""
    cell = {"MATLAB_class": _ascii("cell")}
    for owned in (False, True):
        tree = _tree(c=Node("dataset", dict(cell), value=_refs("/#refs#/b", "/#refs#/b")),
                     **{"#refs#__b": Node("dataset", {"MATLAB_class": _ascii("double")}, value=np.ones((1, 2)))})
        c = loadmat_tree(tree, owned=owned)["c"]
        assert c.shape == (1, 2) and c[0, 0] is not c[0, 1]
        assert c[0, 0].tolist() == c[0, 1].tolist() == [[1.0], [1.0]]
        shared = [np.shares_memory(x, tree["/#refs#/b"].value) for x in c.flat]
        assert shared == ([True, False] if owned else [False, False])


@pytest.mark.parametrize("rel,entry", [(r, e) for r, e in RECORDED if r.startswith("valid/")],
                         ids=[r for r, _ in RECORDED if r.startswith("valid/")])
def test_load_decides_by_content(rel, entry, tmp_path):
    """npyguard.load of a MAT v7.3 or HDF5 file, under a name that says
    .npy, gives what hdf5storage.loadmat (MAT) or hdf5storage.read('/')
    (HDF5) returned for it, as the generators recorded."""
    if hdf5_helper() is None:
        pytest.skip("the HDF5 helper is not built here")
    disguised = tmp_path / "x.npy"
    disguised.write_bytes(open(os.path.join(HDF5, rel), "rb").read())
    want = entry["hdf5storage_loadmat"] if rel.endswith(".mat") else entry["hdf5storage_read_root"]
    assert _described(lambda: npyguard.load(str(disguised))) == want
    with open(disguised, "rb") as f:
        assert _described(lambda: npyguard.load(f)) == want


def test_load_of_hdf5_bytes_is_a_clear_refusal():
    data = open(os.path.join(HDF5, "valid", "mat", "float.mat"), "rb").read()
    with pytest.raises(npyguard.NotLoadableError) as ei:
        npyguard.load(data)
    assert "path, a descriptor or a regular file" in str(ei.value)


# ---------------------------------------------------------------- the names

def test_the_names_are_those_hdf5storage_writes():
    """The names the library and this decoder share (storage.def, through
    _core.storage_rules()) are hdf5storage's own: every Python.Type its
    marshallers write, the numpy type it gives each MATLAB_class, the
    class it writes for a numpy type, and its attribute names."""
    hdf5storage = pytest.importorskip("hdf5storage")
    from hdf5storage.Marshallers import NumpyScalarArrayMarshaller
    from npyguard import _core
    rules = _core.storage_rules()
    marshallers = hdf5storage.MarshallerCollection()._marshallers
    assert set(rules["python_types"]) == {t for m in marshallers for t in m.python_type_strings}
    numpy = NumpyScalarArrayMarshaller()
    to_numpy = numpy._NumpyScalarArrayMarshaller__MATLAB_classes_reverse  # MATLAB_class -> numpy type
    classes = {name: t for name, t, _ in rules["matlab_classes"]}
    assert {k: np.dtype(v).type for k, v in classes.items() if v is not None} == to_numpy
    assert set(classes) - set(to_numpy) == {"function_handle"}  # MATLAB's, which hdf5storage does not read
    # the first class of a numpy type is the one hdf5storage writes for it
    for t, written in numpy._NumpyScalarArrayMarshaller__MATLAB_classes.items():
        first = next((name for name, v in classes.items() if v == np.dtype(t).name), None)
        assert first in (written, None), t
    attrs = numpy.python_attributes | numpy.matlab_attributes
    assert set(rules["string_attrs"]) | set(rules["typed_attrs"]) <= attrs
    assert len(rules["string_attrs"]) == 4 and "MATLAB_class" in rules["string_attrs"]


def test_a_name_the_decoder_and_the_library_disagree_on_fails_the_import():
    from npyguard import _core, _matlab
    rules = _core.storage_rules()
    _matlab._check_rules(rules)
    unread = dict(rules, python_types=rules["python_types"] + ("builtins.ellipsis",))
    unknown = dict(rules, python_types=tuple(t for t in rules["python_types"] if t != "collections.deque"))
    container = dict(rules, containers=tuple(c for c in rules["containers"] if c != "matrix"))
    for bad in (unread, unknown, container):
        with pytest.raises(ImportError):
            _matlab._check_rules(bad)
