"""Plant realistic defects, one at a time, in a temporary copy of the repository, and
check that the tests meant to catch them do.

Two sets:

- the *kit* set, defects in core and in each plugin, judged by the conformance kit alone
  (``tests/test_conformance_installed.py``: the kit over every installed task type,
  nothing hand-written); the first failure line shows it names the task type, the role,
  the field and the layer;
- the *core* set (``--core``), bugs one could write in core's merge and resolution
  (``merge/``, ``resolve/``, the policy's enforce layer), judged by core's own tests
  alone (:data:`CORE_TESTS`, run with ``-x``): not the kit, not the benchmark smoke test.

A mutation is *killed* when its judge fails. Exit status 1 when a mutation survives (or
cannot be applied: the code it targets has changed and the mutation must be updated).

Usage: scripts/mutation [--quick] [--core | --kit] [--list] [NAME...]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mutants_core import CORE_MUTANTS, CORE_TESTS

ROOT = Path(__file__).resolve().parent.parent
KIT = "tests/test_conformance_installed.py"
KIT_SET, CORE_SET = "kit", "core"
_COPIED = ("core", "plugins", "tests", "conftest.py", "pyproject.toml")
_SKIPPED = shutil.ignore_patterns("__pycache__", "*.egg-info", ".pytest_cache", ".hypothesis")


@dataclass(frozen=True)
class Mutation:
    """``old`` -> ``new`` (and each pair of ``also``) in the one source file under
    ``where`` that holds it, once."""

    name: str
    where: str
    old: str
    new: str
    defect: str
    quick: bool = False
    also: tuple[tuple[str, str], ...] = ()  # further (old, new), each in its own file
    judge: str = KIT_SET



MUTATIONS = (
    # ---------------------------------------------------------------- core
    Mutation("env-appended", "core/src",
             '"spec.containers[].env[]": {\n        "strategy": "map",',
             '"spec.containers[].env[]": {\n        "strategy": "set",',
             "env lists appended instead of merged by name", quick=True),
    Mutation("falsy-ignored", "core/src",
             "                target[key] = value\n            elif value is None:",
             "                if value or key not in target:\n"
             "                    target[key] = value\n            elif value is None:",
             "false, 0 and \"\" no longer override a lower layer's value", quick=True),
    Mutation("template-loses-init", "core/src",
             'fragment: dict[str, Any] = {"spec": template.pod_spec}',
             'fragment: dict[str, Any] = {"spec": {k: v for k, v in template.pod_spec.items()'
             ' if k != "initContainers"}}',
             "every template layer loses its initContainers"),
    Mutation("override-skipped", "core/src",
             "    RUN_OVERRIDE: _run_override_layer,\n", "",
             "the run override (--override) is skipped"),
    Mutation("primary-not-first", "core/src",
             'if containers[0]["name"] != primary:', "if False:",
             "the primary container is no longer put first: the first layer's order wins",
             also=(('"spec": {"containers": [{"name": primary}]}}', '"spec": {}}'),)),
    Mutation("null-kept", "core/src",
             "                if key in target:\n                    drop(target, key, "
             "fields.get(key, fallback), path, record)",
             "                target[key] = None",
             "null in a higher layer no longer removes the key: it is emitted as null"),
    Mutation("keyed-delete-ignored", "core/src",
             "                if patch == DELETE:\n                    deleted = "
             "_delete_keyed(",
             "                if patch == 'ignored':\n                    deleted = "
             "_delete_keyed(",
             "$patch: delete items no longer remove an inherited keyed item"),
    Mutation("union-duplicates", "core/src",
             "        if existing == new and ident(existing) == ident(new):",
             "        if False:",
             "a toleration or envFrom given by two layers appears twice"),
    # ---------------------------------------------------------------- plugins
    Mutation("pytorch-master-takes-worker-role", "plugins/pytorch/src",
             '[("master", config.master)]', '[("master", config.worker)]',
             "the master role is given the worker's role config (values leak)", quick=True),
    Mutation("pytorch-rolespec-forgets-role", "plugins/pytorch/src",
             "container_name=CONTAINER_NAME, role=role,", "container_name=CONTAINER_NAME,",
             "RoleSpec without role=: role templates and settings silently lost"),
    Mutation("pytorch-affinity-owned-and-dropped", "plugins/pytorch/src",
             'container["ports"] = [port]\n    spec: dict[str, Any] = {"containers": [container]}',
             'container["ports"] = [port]\n'
             '    spec: dict[str, Any] = {"containers": [container], "affinity": None}',
             "spec.affinity declared operator-owned and dropped by the operator layer",
             also=(("owned = _ENTRYPOINT + (_SHM if config.shm_size else ())",
                    "owned = _ENTRYPOINT + (_SHM if config.shm_size else ()) + "
                    "(FieldDecl('spec.affinity', 'the operator places replicas'),)"),)),
    Mutation("pytorch-role-resources-replaced", "plugins/pytorch/src",
             "container_name=CONTAINER_NAME, role=role, operator_layer=layer,",
             "container_name=CONTAINER_NAME, role=role, "
             "operator_layer=_with_role_resources(layer, role),",
             "the plugin writes a role's requests itself, replacing the resources",
             also=(("def define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:",
                    "def _with_role_resources(layer: dict[str, Any], role: Any) -> Any:\n"
                    "    if role is None or role.requests is None:\n"
                    "        return layer\n"
                    "    container = {**layer['spec']['containers'][0], 'resources': {\n"
                    "        '$patch': 'replace', 'requests': role.requests.to_k8s()}}\n"
                    "    return {'spec': {**layer['spec'], 'containers': [container]}}\n\n\n"
                    "def define_roles(task: Task, context: RenderContext) -> list[RoleSpec]:"),)),
    # Issue 31: what the kit missed before expectations came from the task definition,
    # the probe tried both polarities, declarations were verified, duplicates were looked
    # for in every render and operator facts said where a field lives.
    Mutation("pytorch-role-rebuilt-without-settings", "plugins/pytorch/src",
             "container_name=CONTAINER_NAME, role=role, operator_layer=layer,",
             "container_name=CONTAINER_NAME, role=role and role.model_copy(update=dict("
             "image=None, env=None, requests=None, limits=None)), operator_layer=layer,",
             "RoleSpec.role rebuilt without the role's image, env, requests and limits",
             quick=True),
    Mutation("pytorch-false-automount-dropped", "plugins/pytorch/src",
             'return {"replicas": replicas, "restartPolicy": restart, "template": pod}',
             'return {"replicas": replicas, "restartPolicy": restart, "template": {**pod, '
             '"spec": {k: v for k, v in pod["spec"].items() '
             'if k != "automountServiceAccountToken" or v}}}',
             "the build copies automountServiceAccountToken only when it is true",
             quick=True),
    Mutation("pytorch-false-escalation-dropped", "plugins/pytorch/src",
             'from_template = pod["spec"].pop("restartPolicy", None)',
             'from_template = pod["spec"].pop("restartPolicy", None)\n'
             '    for container in pod["spec"]["containers"]:\n'
             '        if (container.get("securityContext") or {}).get('
             '"allowPrivilegeEscalation") is False:\n'
             '            del container["securityContext"]["allowPrivilegeEscalation"]',
             "the build drops a container's allowPrivilegeEscalation: false"),
    Mutation("pytorch-drop-declared-runtime", "plugins/pytorch/src",
             'from_template = pod["spec"].pop("restartPolicy", None)',
             'from_template = pod["spec"].pop("restartPolicy", None)\n'
             '    pod["spec"].pop("affinity", None)',
             "the build drops spec.affinity, declared 'runtime:' as if the operator set it",
             also=(("owned = _ENTRYPOINT + (_SHM if config.shm_size else ())",
                    "owned = _ENTRYPOINT + (_SHM if config.shm_size else ()) + (FieldDecl("
                    "'spec.affinity', 'runtime: the operator places the replicas'),)"),)),
    Mutation("pytorch-own-env-appended", "plugins/pytorch/src",
             'from_template = pod["spec"].pop("restartPolicy", None)',
             'from_template = pod["spec"].pop("restartPolicy", None)\n'
             '    pod["spec"]["containers"][0].setdefault("env", []).append('
             '{"name": "PYTHONUNBUFFERED", "value": "1"})',
             "the build appends its own env var, beside a user's of the same name"),
    Mutation("pytorch-restart-policy-on-pods", "plugins/pytorch/src",
             'from_template = pod["spec"].pop("restartPolicy", None)',
             'from_template = pod["spec"].get("restartPolicy")',
             "restartPolicy left on the pods, undeclared (the operator overwrites it there)",
             also=(("owned=(*owned, _restart_policy(name)),", "owned=owned,"),)),
    Mutation("pytorch-worker-replicas-ignored", "plugins/pytorch/src",
             "if self.worker is not None and self.worker.replicas is not None:",
             "if False:",
             "the worker role's replicas setting is ignored"),
    Mutation("dask-rolespec-forgets-role", "plugins/dask/src",
             "container_name=CONTAINER_NAMES[role], role=config,",
             "container_name=CONTAINER_NAMES[role],",
             "RoleSpec without role=: role templates and settings silently lost"),
    Mutation("spark-rolespec-forgets-role", "plugins/spark/src",
             "        role=config_role,\n", "",
             "RoleSpec without role=: role templates and settings silently lost"),
    Mutation("ray-groups-share-first-pod", "plugins/ray/src",
             "pods[worker_role_name(group)])", "pods[worker_role_name(config.worker_groups[0])])",
             "every worker group gets the first group's pod (values leak)"),
    Mutation("shell-volumes-replaced", "plugins/shell/src",
             '"volumes": [{"$patch": "replace", "name": SCRIPT_VOLUME,',
             '"volumes": [{"$patch": "replace"}, {"name": SCRIPT_VOLUME,',
             "the operator layer replaces the template's volumes instead of adding its own"),
    Mutation("container-drops-init", "plugins/container/src",
             "return [pod_manifest(task, pod, context)]",
             "return [pod_manifest(task, {**pod, 'spec': {k: v for k, v in "
             "pod['spec'].items() if k != 'initContainers'}}, context)]",
             "the plugin drops initContainers when it builds the Pod"),
)

CORE_MUTATIONS = tuple(
    Mutation(m.name, f"core/src/podtemplate/{m.package}", m.old, m.new, m.defect, quick=m.quick,
             judge=CORE_SET) for m in CORE_MUTANTS)


def plan(mutation: Mutation, root: Path) -> dict[Path, str] | str:
    """The mutated text of each file ``mutation`` changes under ``root``, or why it cannot
    be planted. Each replacement goes to the one source file under ``where`` that holds
    its text, once."""
    texts: dict[Path, str] = {}
    sources = sorted((root / mutation.where).rglob("*.py"))
    for old, new in ((mutation.old, mutation.new), *mutation.also):
        holders = [path for path in sources
                   if old in texts.get(path, path.read_text(encoding="utf-8"))]
        if len(holders) != 1:
            return f"{old!r} is found in {len(holders)} files under {mutation.where}, not one"
        text = texts.get(holders[0], holders[0].read_text(encoding="utf-8"))
        if text.count(old) != 1:
            return f"{old!r} occurs {text.count(old)} times in {holders[0].name}"
        texts[holders[0]] = text.replace(old, new)
    return texts


def apply(mutation: Mutation, copy: Path) -> str | None:
    """Plant ``mutation`` in ``copy``; returns why it cannot be planted, else None."""
    texts = plan(mutation, copy)
    if isinstance(texts, str):
        return texts
    for path, text in texts.items():
        path.write_text(text, encoding="utf-8")
    return None


def _environment(copy: Path) -> dict[str, str]:
    sources = [copy / "core" / "src", *sorted((copy / "plugins").glob("*/src"))]
    return {**os.environ, "PYTHONPATH": os.pathsep.join(map(str, sources)),
            "PYTHONDONTWRITEBYTECODE": "1"}


def run_judge(judge: str, copy: Path) -> tuple[int, str]:
    """The kit over every installed task type, or core's tests (:data:`CORE_TESTS`),
    importing the copy's sources."""
    tests = [KIT] if judge == KIT_SET else [t for t in CORE_TESTS if (copy / t).is_file()]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                           "-p", "no:randomly", *tests], cwd=copy, env=_environment(copy),
                          capture_output=True, text=True, timeout=900)
    return done.returncode, done.stdout


def imports_the_copy(copy: Path) -> bool:
    """Whether a test run in ``copy`` imports the copy's core (not the installed one)."""
    done = subprocess.run([sys.executable, "-c", "import podtemplate; print(podtemplate.__file__)"],
                          cwd=copy, env=_environment(copy), capture_output=True, text=True)
    return Path(done.stdout.strip()).is_relative_to(copy)


def first_failure(output: str) -> str:
    found = re.search(r"^\s*(\[\w[\w-]*\] .+)$", output, re.MULTILINE)
    if found:
        return found.group(1).strip()
    errors = [line for line in output.splitlines() if line.startswith(("E ", "FAILED", "ERROR"))]
    return errors[0] if errors else "(no failure line)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="only the fixed CI set")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--core", action="store_true", help="only the core set")
    which.add_argument("--kit", action="store_true", help="only the kit set")
    parser.add_argument("--list", action="store_true",
                        help="list the mutations, check each can be planted, and exit")
    parser.add_argument("names", nargs="*", help="run only these mutations")
    args = parser.parse_args()
    judges = {CORE_SET} if args.core else {KIT_SET} if args.kit else {KIT_SET, CORE_SET}
    chosen = [m for m in (*MUTATIONS, *CORE_MUTATIONS) if m.judge in judges
              and (not args.quick or m.quick) and (not args.names or m.name in args.names)]
    if args.list:
        stale = 0
        for mutation in chosen:
            problem = plan(mutation, ROOT)
            stale += isinstance(problem, str)
            state = f"NOT APPLIED: {problem}" if isinstance(problem, str) else mutation.defect
            print(f"{mutation.judge:4} {mutation.name:40} {state}")
        return 1 if stale else 0
    survived = 0
    with tempfile.TemporaryDirectory(prefix="podtemplate-mutation-") as folder:
        pristine = Path(folder) / "pristine"
        for name in _COPIED:
            source = ROOT / name
            if source.is_dir():
                shutil.copytree(source, pristine / name, ignore=_SKIPPED)
            else:
                shutil.copy2(source, pristine / name)
        if not imports_the_copy(pristine):
            print("the copy's tests would import the installed podtemplate, not the copy")
            return 2
        for judge in sorted({m.judge for m in chosen}):
            status, output = run_judge(judge, pristine)
            if status != 0:
                print(f"the {judge} tests fail before any mutation:\n{first_failure(output)}")
                return 2
        for mutation in chosen:
            copy = Path(folder) / mutation.name
            shutil.copytree(pristine, copy)
            problem = apply(mutation, copy)
            if problem is not None:
                survived += 1
                print(f"NOT APPLIED {mutation.name}: {problem}")
                continue
            status, output = run_judge(mutation.judge, copy)
            verdict = "killed" if status == 1 else "SURVIVED" if status == 0 else "ERROR"
            survived += verdict != "killed"
            print(f"{verdict:8} {mutation.judge:4} {mutation.name}: {mutation.defect}",
                  flush=True)
            if status != 0:
                print(f"         {first_failure(output)[:400]}", flush=True)
            shutil.rmtree(copy)
    killed = len(chosen) - survived
    print(f"kill rate: {killed}/{len(chosen)}")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
