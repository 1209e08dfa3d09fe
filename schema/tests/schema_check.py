# SPDX-License-Identifier: BSD-3-Clause
"""The start both schema tests share: their arguments (NPYVALIDATE CORPUS
SCHEMA), the schema checked against its draft's meta-schema, and the
failures, which fail() prints and collects."""
import json
import sys

failures = []


def fail(what):
    failures.append(what)
    print("FAIL:", what[:600])


def start(draft):
    """npyvalidate, the corpus, and a draft validator of the schema."""
    exe, corpus, schema_path = sys.argv[1:4]
    with open(schema_path) as f:
        schema = json.load(f)
    draft.check_schema(schema)
    return exe, corpus, draft(schema)
