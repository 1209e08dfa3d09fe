# SPDX-License-Identifier: BSD-3-Clause
"""The pre-commit hook, the GitHub Action and the GitLab CI template run
what they say over a temporary git repository with good and bad data
files, with a built npyvalidate on PATH: each passes a repository of
valid files (and an empty one), fails one with a refused file, and the
Action's and GitLab's SARIF logs have the structure of SARIF 2.1.0
(schema/sarif-2.1.0-subset.schema.json) and a result per refused file.

    test_integrations.py NPYVALIDATE SOURCE_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema
import yaml

exe, src = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
corpus = os.path.join(src, "corpus")
with open(os.path.join(src, "schema", "sarif-2.1.0-subset.schema.json")) as f:
    sarif_schema = jsonschema.Draft7Validator(json.load(f))
failures = []
env = dict(os.environ, PATH=os.path.dirname(exe) + os.pathsep + os.environ["PATH"],
           GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@example.invalid", GIT_COMMITTER_NAME="t",
           GIT_COMMITTER_EMAIL="t@example.invalid")

# Good files numpy, hdf5storage and the RawArray writer made; bad ones the
# corpus manifests call invalid or unsafe.
GOOD = {"a.npy": "valid/f8-le-2d-F-v1.npy", "sub dir/b.npz": "npz/valid/savez-several.npz",
        "c.ra": "ra/valid/" + sorted(os.listdir(os.path.join(corpus, "ra", "valid")))[0],
        "m.mat": "hdf5/valid/mat/savemat-several.mat", "notes.txt": "README.md"}
BAD = {"bad.npy": "invalid/dim-bool-true-v1.npy", "evil \xe9.npz": "npz/unsafe/pickle-member.npz",
       "os.npy": "unsafe/obj-os-system-v1.npy"}


def fail(what):
    failures.append(what)
    print("FAIL:", what[:600])


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], env=env, check=True, capture_output=True).stdout


def make_repo(root, files):
    repo = tempfile.mkdtemp(dir=root)
    git(repo, "init", "-q")
    for name, from_ in files.items():
        os.makedirs(os.path.dirname(os.path.join(repo, name)) or repo, exist_ok=True)
        shutil.copyfile(os.path.join(corpus, from_) if from_ != "README.md" else os.path.join(src, from_),
                        os.path.join(repo, name))
    git(repo, "add", "-A")
    if files:
        git(repo, "commit", "-qm", "data")
    return repo


def pre_commit(repo):
    """What pre-commit runs for the hook: entry, args, then the staged
    files its `files` pattern picks (as pre-commit, by path)."""
    with open(os.path.join(src, ".pre-commit-hooks.yaml")) as f:
        hook, = [h for h in yaml.safe_load(f) if h["id"] == "npyvalidate"]
    names = [n for n in git(repo, "-c", "core.quotePath=false", "ls-files", "-z").decode().split("\0") if n]
    picked = [n for n in names if re.search(hook["files"], n)]
    if not picked:
        return 0
    return subprocess.run([hook["entry"], *hook.get("args", []), *picked], cwd=repo, env=env,
                          capture_output=True).returncode


def action(repo, tmp):
    """The composite action's steps, their ${{ inputs.x }} at the defaults,
    under the shell GitHub runs them in."""
    with open(os.path.join(src, "action.yml")) as f:
        a = yaml.safe_load(f)
    inputs = {k: v.get("default", "") for k, v in a["inputs"].items()}
    out = os.path.join(tmp, "github_output")
    open(out, "w").close()
    status, said = 0, b""
    for step in a["runs"]["steps"]:
        senv = dict(env, GITHUB_OUTPUT=out)
        for k, v in step.get("env", {}).items():
            senv[k] = re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: inputs[m.group(1)], str(v))
        r = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                           cwd=repo, env=senv, capture_output=True)
        status, said = r.returncode, said + r.stdout
        if status:
            break
    outputs = dict(line.split("=", 1) for line in open(out).read().splitlines())
    outputs["said"] = said.decode(errors="replace")
    return status, outputs


def gitlab(repo):
    """The job's script lines, in one shell that stops at the first
    failure, as a GitLab runner runs them; its variables set."""
    with open(os.path.join(src, "ci", "templates", "npyvalidate.gitlab-ci.yml")) as f:
        job = yaml.safe_load(f)["npyvalidate"]
    jenv = dict(env, **{k: str(v) for k, v in job["variables"].items()})
    return subprocess.run(["bash", "-eo", "pipefail", "-c", "\n".join(job["script"])], cwd=repo, env=jenv,
                          capture_output=True).returncode


def check_sarif(path, nbad, label):
    try:
        with open(path) as f:
            log = json.load(f)
    except (OSError, ValueError) as e:
        fail(f"{label}: no SARIF log: {e}")
        return
    for e in sarif_schema.iter_errors(log):
        fail(f"{label}: SARIF {'/'.join(map(str, e.absolute_path))}: {e.message[:200]}")
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"]}
    if len(uris) != nbad or (nbad and not any(u.endswith("b.npz") is False and "%C3%A9" in u for u in uris)):
        fail(f"{label}: results for {sorted(uris)}, want {nbad} files")


with tempfile.TemporaryDirectory() as root:
    good = make_repo(root, GOOD)
    mixed = make_repo(root, {**GOOD, **BAD})
    empty = make_repo(root, {})
    for label, repo, want in (("good", good, 0), ("mixed", mixed, 1), ("empty", empty, 0)):
        st = pre_commit(repo)
        if st != want:
            fail(f"pre-commit, {label} repository: status {st}, want {want}")
        st, outputs = action(repo, root)
        if want == 0 and repo == good:
            listed = open(os.path.join(repo, "npyvalidate.sarif")).read()
            if json.loads(listed)["runs"][0]["results"]:
                fail("action, good repository: results in the log")
        ndata = len([n for n in (GOOD if repo == good else {**GOOD, **BAD} if repo == mixed else {})
                     if not n.endswith(".txt")])
        if f"npyvalidate: {ndata} file(s)" not in outputs["said"]:
            fail(f"action, {label} repository: {outputs['said']!r}, want {ndata} files")
        if st != want or outputs.get("status") != str(want):
            fail(f"action, {label} repository: status {st}, outputs {outputs}, want {want}")
        check_sarif(os.path.join(repo, "npyvalidate.sarif"), len(BAD) if want else 0, "action " + label)
        os.unlink(os.path.join(repo, "npyvalidate.sarif"))
        st = gitlab(repo)
        if st != want:
            fail(f"gitlab, {label} repository: status {st}, want {want}")
        if repo != empty:
            check_sarif(os.path.join(repo, "npyvalidate.sarif"), len(BAD) if want else 0, "gitlab " + label)
            recs = [json.loads(l) for l in open(os.path.join(repo, "npyvalidate.jsonl"))]
            if len(recs) != len([n for n in (GOOD if want == 0 else {**GOOD, **BAD}) if not n.endswith(".txt")]):
                fail(f"gitlab, {label}: {len(recs)} records")

print("integrations: pre-commit hook, GitHub Action, GitLab template: "
      + ("as documented" if not failures else f"{len(failures)} failures"))
sys.exit(1 if failures else 0)
