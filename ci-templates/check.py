#!/usr/bin/env python3
"""Check the CI templates for vendors: action.yml (GitHub composite action),
ci-templates/github/conformance.yml (a workflow using it) and
ci-templates/gitlab/ctk.gitlab-ci.yml.

Run by .ci/run with the venv of ci-templates/requirements.txt:

    python check.py --ctk target/release/ctk

1. Schemas: check-jsonschema's vendored schemas (offline) for GitHub actions,
   GitHub workflows and GitLab CI.
2. actionlint on the example workflow, and on a workflow made of the
   action's own steps (`on: workflow_call` with the action's inputs), so that
   its expressions, the inputs of the actions it uses and (with shellcheck on
   PATH) its shell scripts are linted too; and on the example workflow
   pointed at this checkout's action (`uses: ./`), so that the inputs it
   passes are checked against action.yml.
3. shellcheck on the GitLab template's scripts.
4. A dry run of both templates' shell steps with this build of ctk against
   examples/python-host: a passing run must end green with junit.xml,
   report.html and badge.svg where the artifacts expect them; a run with a
   failing vector must end red, with the reports still there; the advisory
   draft job must never turn a run red.
5. With --wheel, the install option `wheel` of both templates: each installs
   that agent-hooks-ctk wheel into a venv of its own, with no other ctk on
   PATH, and its passing run ends green with that ctk.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from ruamel.yaml import YAML

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ACTION = os.path.join(ROOT, "action.yml")
WORKFLOW = os.path.join(ROOT, "ci-templates", "github", "conformance.yml")
GITLAB = os.path.join(ROOT, "ci-templates", "gitlab", "ctk.gitlab-ci.yml")
HOST = "python3 " + os.path.join(ROOT, "examples", "python-host", "host.py")
DECLARATION = os.path.join(ROOT, "examples", "python-host", "host.json")

failures = []


def fail(what):
    print("FAIL: " + what)
    failures.append(what)


def run(cmd, **kw):
    print("$ " + " ".join(cmd))
    return subprocess.run(cmd, **kw)


def load(path):
    with open(path) as f:
        return YAML(typ="safe").load(f)


def dump(doc, path):
    yaml = YAML()
    yaml.default_flow_style = False
    with open(path, "w") as f:
        yaml.dump(doc, f)


def bindir(name):
    return os.path.join(os.path.dirname(sys.executable), name)


def schemas():
    for schema, path in [("vendor.github-actions", ACTION), ("vendor.github-workflows", WORKFLOW),
                         ("vendor.gitlab-ci", GITLAB)]:
        if run([bindir("check-jsonschema"), "--builtin-schema", schema, path]).returncode != 0:
            fail("%s does not match the %s schema" % (os.path.relpath(path, ROOT), schema))


def actionlint(scratch):
    lint = bindir("actionlint")
    if run([lint, WORKFLOW]).returncode != 0:
        fail("actionlint: ci-templates/github/conformance.yml")
    action = load(ACTION)
    # The action's steps as a reusable workflow: actionlint lints workflows,
    # not action metadata, and this way every step is checked in place.
    inputs = {name: {"type": "string", "required": False, "default": str(spec.get("default", ""))}
              for name, spec in action["inputs"].items()}
    steps = []
    for step in action["runs"]["steps"]:
        steps.append({k: v for k, v in step.items()})
    workflow = {
        "name": "action.yml as a workflow",
        "on": {"workflow_call": {"inputs": inputs}},
        "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": steps}},
    }
    repo = os.path.join(scratch, "repo")
    os.makedirs(os.path.join(repo, ".github", "workflows"))
    subprocess.run(["git", "init", "-q", repo], check=True)
    dump(workflow, os.path.join(repo, ".github", "workflows", "action-steps.yml"))
    shutil.copy(ACTION, os.path.join(repo, "action.yml"))
    with open(WORKFLOW) as f:
        local = re.sub(r"uses: [^\s]+/agent-hooks-ctk@[^\s]+", "uses: ./", f.read())
    if "uses: ./" not in local:
        fail("ci-templates/github/conformance.yml does not use the agent-hooks-ctk action")
    with open(os.path.join(repo, ".github", "workflows", "conformance.yml"), "w") as f:
        f.write(local)
    if run([lint], cwd=repo).returncode != 0:
        fail("actionlint: action.yml's steps, or the example workflow against action.yml")


def gitlab_scripts(doc, job):
    base = doc.get(doc[job].get("extends", ""), {}) if isinstance(doc[job].get("extends"), str) else {}
    before = base.get("before_script", []) + doc[job].get("before_script", [])
    return "\n".join(before + doc[job]["script"])


def shellcheck_gitlab(scratch):
    if shutil.which("shellcheck") is None:
        fail("shellcheck is not installed (apt-get install shellcheck)")
        return
    doc = load(GITLAB)
    for job in ("ctk:gating", "ctk:draft"):
        path = os.path.join(scratch, job.replace(":", "-") + ".sh")
        with open(path, "w") as f:
            f.write("#!/usr/bin/env bash\n" + gitlab_scripts(doc, job) + "\n")
        # SC2154: the variables come from GitLab.
        if run(["shellcheck", "-s", "bash", "-e", "SC2154", path]).returncode != 0:
            fail("shellcheck: %s's script in ctk.gitlab-ci.yml" % job)


EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def evaluate(expr, ctx):
    """The few expressions the action uses: contexts, ==, !=, &&, always()."""
    def value(m):
        return repr(lookup(m.group(0), ctx))
    py = re.sub(r"[A-Za-z_][\w-]*(?:\.[\w-]+)+", value, expr)
    py = py.replace("always()", "True").replace("&&", " and ").replace("||", " or ")
    return eval(py, {"__builtins__": {}}, {})  # only literals are left


def lookup(path, ctx):
    parts = path.split(".")
    if parts[0] == "inputs":
        return ctx["inputs"][parts[1]]
    if parts[0] == "steps":
        return ctx["steps"].get(parts[1], {}).get(parts[3], "")
    if parts == ["github", "action_path"]:
        return ROOT
    if parts == ["runner", "temp"]:
        return ctx["temp"]
    raise SystemExit("check.py: the action uses ${{ %s }}, which this dry run does not know" % path)


def substitute(text, ctx):
    return EXPR.sub(lambda m: str(evaluate(m.group(1), ctx)), text)


def dry_run_action(scratch, ctk_dir, inputs):
    """Run the action's shell steps as a runner would; the last step's exit code."""
    action = load(ACTION)
    given = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    given.update(inputs)
    work = tempfile.mkdtemp(dir=scratch)
    ctx = {"inputs": given, "steps": {}, "temp": os.path.join(work, "runner-temp")}
    os.makedirs(ctx["temp"])
    files = {k: os.path.join(work, k) for k in ("GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY")}
    path = [ctk_dir]
    failed = False
    code = None
    for step in action["runs"]["steps"]:
        cond = step.get("if")
        if cond is not None and not evaluate(cond, ctx):
            continue
        if cond is None and failed:
            continue
        if "uses" in step:
            # The upload: each pattern it uploads must find its file.
            for pattern in substitute(step["with"]["path"], ctx).split():
                if not glob.glob(os.path.join(work, pattern), recursive=True):
                    fail("the action uploads %s, which the run did not write" % pattern)
            continue
        for f in files.values():
            open(f, "w").close()
        env = dict(os.environ, PATH=os.pathsep.join(path + [os.environ["PATH"]]), **files)
        env.update({k: substitute(str(v), ctx) for k, v in step.get("env", {}).items()})
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
                              cwd=work, env=env)
        print("[%s] exit %d" % (step.get("name"), done.returncode))
        outputs = {}
        for line in open(files["GITHUB_OUTPUT"]).read().splitlines():
            k, _, v = line.partition("=")
            outputs[k] = v
        if "id" in step:
            ctx["steps"][step["id"]] = outputs
        path = open(files["GITHUB_PATH"]).read().split() + path
        code = done.returncode
        if done.returncode != 0 and not step.get("continue-on-error"):
            failed = True
    return code, work, ctx


def wrong_vectors(scratch):
    """CTK-0001 as released and CTK-9001, whose expected output is wrong."""
    folder = os.path.join(scratch, "vectors")
    os.makedirs(folder)
    with open(os.path.join(ROOT, "vectors", "0.1", "CTK-0001-allow-warning-startup.json")) as f:
        vector = json.load(f)
    with open(os.path.join(folder, "CTK-0001.json"), "w") as f:
        json.dump(vector, f)
    vector["id"] = "CTK-9001"
    vector["expect"]["final_output"] = "not done"
    with open(os.path.join(folder, "CTK-9001.json"), "w") as f:
        json.dump(vector, f)
    return folder


def dry_runs(scratch, ctk_dir):
    common = {"host-command": HOST, "declaration": DECLARATION, "install": "path"}
    code, work, ctx = dry_run_action(scratch, ctk_dir, dict(common, args="--part verdict/warnings"))
    if code != 0:
        fail("the action's passing run ended with exit %s" % code)
    if ctx["steps"].get("gating", {}).get("exit-code") != "0":
        fail("the action's passing run has gating exit-code %r" % ctx["steps"].get("gating"))
    for name in ("ctk-reports/0.1/junit.xml", "ctk-reports/0.1/report.html", "ctk-reports/badge.svg"):
        if not os.path.isfile(os.path.join(work, name)):
            fail("the action's passing run left no %s" % name)
    if "draft" not in ctx["steps"]:
        fail("the action's advisory draft job did not run")

    bad = wrong_vectors(scratch)
    code, work, ctx = dry_run_action(scratch, ctk_dir, dict(common, args="--vectors " + bad))
    if code != 1:
        fail("the action's run with a failing vector ended with exit %s, not 1" % code)
    if not os.path.isfile(os.path.join(work, "ctk-reports/0.1/report.html")):
        fail("the action's failing run left no report.html")

    doc = load(GITLAB)
    for job, args, want in [("ctk:gating", "--part verdict/warnings", 0), ("ctk:gating", "--vectors " + bad, 1)]:
        work = tempfile.mkdtemp(dir=scratch)
        variables = {k: str(v) for k, v in doc["variables"].items()}
        variables.update(CTK_HOST_COMMAND=HOST, CTK_DECLARATION=DECLARATION, CTK_INSTALL="path",
                         CTK_ARGS=args, CI_PROJECT_DIR=work)
        env = dict(os.environ, PATH=ctk_dir + os.pathsep + os.environ["PATH"], **variables)
        done = subprocess.run(["bash", "--noprofile", "--norc", "-c", gitlab_scripts(doc, job)], cwd=work, env=env)
        print("[gitlab %s %s] exit %d" % (job, args, done.returncode))
        if done.returncode != want:
            fail("the GitLab %s job with %s ended with exit %d, not %d" % (job, args, done.returncode, want))
        artifacts = doc[job]["artifacts"]
        wanted = [artifacts["reports"]["junit"]] + artifacts["paths"]
        for pattern in wanted:
            expanded = re.sub(r"\$(\w+)", lambda m: variables[m.group(1)], pattern)
            if not glob.glob(os.path.join(work, expanded)):
                fail("the GitLab %s job keeps %s, which it did not write" % (job, expanded))
        if not os.path.isfile(os.path.join(work, "ctk-reports/0.1/report.html")):
            fail("the GitLab %s job left no report.html" % job)


def wheel_runs(scratch, wheel):
    """Both templates' `wheel` install, from an empty PATH directory: the ctk the
    passing run uses can only be the wheel's."""
    empty = tempfile.mkdtemp(dir=scratch)
    code, work, ctx = dry_run_action(scratch, empty, {
        "host-command": HOST, "declaration": DECLARATION, "install": "wheel", "wheel": wheel,
        "args": "--part verdict/warnings"})
    if code != 0 or ctx["steps"].get("gating", {}).get("exit-code") != "0":
        fail("the action's passing run with install: wheel ended with exit %s" % code)
    if not os.path.isfile(os.path.join(ctx["temp"], "ctk", "venv", "bin", "ctk")):
        fail("the action's install: wheel put no ctk in its venv")
    doc = load(GITLAB)
    work = tempfile.mkdtemp(dir=scratch)
    variables = {k: str(v) for k, v in doc["variables"].items()}
    variables.update(CTK_HOST_COMMAND=HOST, CTK_DECLARATION=DECLARATION, CTK_INSTALL="wheel",
                     CTK_WHEEL=wheel, CTK_ARGS="--part verdict/warnings", CI_PROJECT_DIR=work)
    env = dict(os.environ, PATH=empty + os.pathsep + os.environ["PATH"], **variables)
    done = subprocess.run(["bash", "--noprofile", "--norc", "-c", gitlab_scripts(doc, "ctk:gating")],
                          cwd=work, env=env)
    print("[gitlab ctk:gating CTK_INSTALL=wheel] exit %d" % done.returncode)
    if done.returncode != 0:
        fail("the GitLab ctk:gating job with CTK_INSTALL=wheel ended with exit %d" % done.returncode)
    if not os.path.isfile(os.path.join(work, ".ctk", "venv", "bin", "ctk")):
        fail("the GitLab CTK_INSTALL=wheel put no ctk in its venv")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ctk", required=True, help="the ctk binary the dry runs use")
    parser.add_argument("--wheel", help="an agent-hooks-ctk wheel: dry-run both templates' install option wheel with it")
    args = parser.parse_args()
    ctk = os.path.abspath(args.ctk)
    if not os.access(ctk, os.X_OK) or os.path.basename(ctk) != "ctk":
        raise SystemExit("--ctk must name an executable called ctk, not %s" % args.ctk)
    scratch = tempfile.mkdtemp(prefix="ctk-ci-templates-")
    try:
        schemas()
        actionlint(scratch)
        shellcheck_gitlab(scratch)
        dry_runs(scratch, os.path.dirname(ctk))
        if args.wheel:
            wheel_runs(scratch, os.path.abspath(args.wheel))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if failures:
        print("\n%d problem(s) in the CI templates:" % len(failures))
        for f in failures:
            print("  - " + f)
        return 1
    print("\nCI templates: schemas, actionlint, shellcheck and dry runs all pass")
    return 0


if __name__ == "__main__":
    sys.exit(main())
