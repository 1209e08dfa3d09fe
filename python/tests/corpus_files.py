"""Where the tests find the repository's corpus and its manifests, which
numpy, zipfile and the other real writers' generators (gen/) recorded."""
import json
import os

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
CORPUS = os.path.join(ROOT, "corpus")


def manifest(*parts):
    """The "files" table of corpus/<parts>/manifest.json."""
    with open(os.path.join(CORPUS, *parts, "manifest.json")) as f:
        return json.load(f)["files"]


MANIFEST = manifest()
NPZ = manifest("npz")
