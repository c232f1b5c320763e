"""The hostile corpus: inputs a hostile or careless user would give ``podtemplate render``
(and the Python API), each with the promised outcome.

A CLI case is a folder of files, the arguments after ``render`` and what must happen:
the exit code and a text the one error line must contain (naming the offending file,
key or value). The runner (test_hostile_corpus.py) also checks, for every case: no
traceback, one error line, nothing written or left behind, inputs unchanged. Cases that
could exhaust memory or time, shadow modules or exit the interpreter run in a child
process under an address-space limit and a time bound (``child=True``).
"""

from __future__ import annotations

import codecs
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Fifo:
    """A named pipe at this path."""


@dataclass(frozen=True)
class Link:
    """A symbolic link at this path, to ``target``."""

    target: str


@dataclass(frozen=True)
class Folder:
    """An empty folder at this path."""


Content = str | bytes | Fifo | Link | Folder | Callable[[], bytes]


@dataclass(frozen=True)
class Case:
    id: str
    files: dict[str, Content]
    args: tuple[str, ...]
    says: str  # a text the error line contains (ignored for exit 0)
    exit: int = 2
    child: bool = False
    env: dict[str, str] = field(default_factory=dict)
    output: str | None = "out"  # -o; None: stdout
    command: str = "render"


@dataclass(frozen=True)
class ApiCase:
    id: str
    call: Callable[[], Any]
    says: str


TASKS = '''from podtemplate import task

@task(image="python:3.11")
def one() -> None: ...

@task(image="python:3.11")
def two(n: int = 1, items: list = None) -> None: ...
'''

PLATFORM = "templates: templates\ndefaultTemplate: default\n"
GOOD_TEMPLATE = """apiVersion: v1
kind: PodTemplate
metadata: {name: default}
template:
  spec:
    nodeSelector: {pool: general}
"""


def _module(source: str) -> dict[str, Content]:
    return {"tasks.py": source}


def _with_tasks(files: dict[str, Content]) -> dict[str, Content]:
    return {"tasks.py": TASKS, **files}


def override(case_id: str, text: Content, says: str, **options: Any) -> Case:
    return Case(case_id, _with_tasks({"ov.yaml": text}), ("tasks.py", "--override", "ov.yaml"),
                says, **options)


def template(case_id: str, text: Content, says: str, name: str = "default.yaml",
             **options: Any) -> Case:
    return Case(case_id, _with_tasks({"platform.yaml": PLATFORM, f"templates/{name}": text}),
                ("tasks.py", "--platform", "platform.yaml"), says, **options)


def platform(case_id: str, text: Content, says: str, **options: Any) -> Case:
    return Case(case_id, _with_tasks({"platform.yaml": text}),
                ("tasks.py", "--platform", "platform.yaml"), says, **options)


def module(case_id: str, source: str, says: str, **options: Any) -> Case:
    return Case(case_id, _module(source), ("tasks.py",), says, **options)


def cli(case_id: str, args: tuple[str, ...], says: str, files: dict[str, Content] | None = None,
        **options: Any) -> Case:
    return Case(case_id, _with_tasks(files or {}), args, says, **options)


# --- contents -------------------------------------------------------------------------

def _bomb(levels: int = 9) -> str:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def _wide_aliases() -> bytes:  # 90,000 aliases of one 20 KB string: 1.8 GB expanded
    return ("s: &s " + "x" * 20_000 + "\nl: [" + ", ".join(["*s"] * 90_000) + "]\n").encode()


def _big_list(megabytes: int) -> Callable[[], bytes]:
    return lambda: b"args:\n" + b"- an-argument-of-some-length\n" * (megabytes * 36_000)


def _env_entries(count: int) -> bytes:
    lines = ["containers:", "- name: primary", "  env:"]
    lines += [f"  - {{name: VAR_{i}, value: 'value {i}'}}" for i in range(count)]
    return ("\n".join(lines) + "\n").encode()


def _nested(depth: int) -> str:
    return "nodeSelector: " + "[" * depth + "]" * depth + "\n"


POD_SPEC_OK = "nodeSelector: {pool: general}\n"
ENCODINGS: list[tuple[str, bytes, str]] = [
    ("utf16-le-bom", codecs.BOM_UTF16_LE + POD_SPEC_OK.encode("utf-16-le"), "UTF-16"),
    ("utf16-be-bom", codecs.BOM_UTF16_BE + POD_SPEC_OK.encode("utf-16-be"), "UTF-16"),
    ("utf32-bom", POD_SPEC_OK.encode("utf-32"), "UTF-32"),
    ("utf16-no-bom", POD_SPEC_OK.encode("utf-16-le"), "NUL byte"),
    ("latin1", "nodeSelector: {pool: caf\xe9}\n".encode("latin-1"), "not UTF-8"),
    ("bad-continuation", b"nodeSelector: {pool: \xc3\x28}\n", "not UTF-8"),
    ("lone-surrogate-bytes", b"nodeSelector: {pool: \xed\xa0\x80}\n", "not UTF-8"),
    ("nul-byte", b"nodeSelector: {pool: a\x00b}\n", "NUL byte"),
    ("binary-garbage", bytes(range(256)) * 4, "UTF-8"),
]

def _template_text(spec_line: str) -> str:
    return GOOD_TEMPLATE.replace("    nodeSelector: {pool: general}\n", spec_line)


def _encoded(text: str, encoding_case: tuple[str, bytes, str]) -> bytes:
    """``text`` in the encoding of an encoding case (or followed by its bad bytes)."""
    name, data, _ = encoding_case
    encodings = {"utf16-le-bom": codecs.BOM_UTF16_LE + text.encode("utf-16-le"),
                 "utf16-be-bom": codecs.BOM_UTF16_BE + text.encode("utf-16-be"),
                 "utf32-bom": text.encode("utf-32"), "utf16-no-bom": text.encode("utf-16-le")}
    return encodings.get(name, text.encode() + data)


def encoding_cases() -> list[Case]:
    cases = []
    for entry in ENCODINGS:
        name, data, says = entry
        cases.append(override(f"override-{name}", data, says))
        cases.append(template(f"template-{name}", _encoded(GOOD_TEMPLATE, entry), says))
        cases.append(platform(f"platform-{name}", _encoded("namespace: team\n", entry), says))
    bom = codecs.BOM_UTF8
    cases += [
        override("override-utf8-bom", bom + POD_SPEC_OK.encode(), "", exit=0),
        template("template-utf8-bom", bom + GOOD_TEMPLATE.encode(), "", exit=0),
        platform("platform-utf8-bom", bom + b"namespace: team\n", "", exit=0),
        override("override-crlf", POD_SPEC_OK.replace("\n", "\r\n").encode(), "", exit=0),
    ]
    return cases


def yaml_cases() -> list[Case]:
    return [
        override("tab-indent", "containers:\n\t- name: primary\n", "ov.yaml"),
        override("unclosed-bracket", "nodeSelector: {a: [b\n", "line"),
        override("bad-indent", "nodeSelector:\n  a: b\n c: d\n", "line"),
        override("python-tag", "!!python/object/apply:os.system ['touch pwned']\n", "ov.yaml"),
        override("python-name-tag", "x: !!python/name:os.system\n", "ov.yaml"),
        override("custom-tag", "nodeSelector: !vault secret\n", "ov.yaml"),
        override("undefined-alias", "nodeSelector: *nowhere\n", "ov.yaml"),
        override("self-alias", "containers:\n- name: primary\n  args: &a [one, *a]\n", "cycle"),
        override("self-alias-map", "nodeSelector: &m {a: *m}\n", "cycle"),
        override("billion-laughs", _bomb(), "alias", child=True),
        override("wide-aliases", _wide_aliases, "alias", child=True),
        override("deep-600", _nested(600), "levels deep"),
        override("deep-10k", _nested(10_000), "ov.yaml"),
        override("deep-maps-300", "a: " + "{b: " * 300 + "c" + "}" * 300 + "\n", "levels deep"),
        override("duplicate-key", "containers:\n- name: primary\n  image: a\n  image: b\n",
                 "'image' is given twice"),
        override("duplicate-top-key", "nodeSelector: {a: b}\nnodeSelector: {c: d}\n",
                 "'nodeSelector' is given twice"),
        override("duplicate-bool-key", "nodeSelector: {yes: a, true: b}\n", "twice"),
        override("huge-int", "activeDeadlineSeconds: " + "9" * 5000 + "\n", "ov.yaml"),
        override("huge-float", "activeDeadlineSeconds: 1.0e+999999\n", "activeDeadlineSeconds"),
        override("quantity-exponent", "containers:\n- name: primary\n  resources: "
                 "{requests: {memory: 1e9999999}}\n", "1e9999999"),
        override("multi-document", POD_SPEC_OK + "---\n" + POD_SPEC_OK, "one YAML document"),
        override("empty-file", "", "found 0"),
        override("only-comments", "# nothing here\n", "found 0"),
        override("null-document", "null\n", "found 0"),
        override("list-document", "- a\n- b\n", "mapping"),
        override("kind-list", "kind: []\n", "kind"),
        override("kind-mapping", "apiVersion: v1\nkind: {a: b}\n", "kind"),
        override("scalar-document", "hello\n", "mapping"),
        override("merge-key-scalar", "nodeSelector:\n  <<: 5\n", "ov.yaml"),
        override("complex-key", "? [a, b]\n: c\n", "ov.yaml"),
        override("over-cap-50mb", _big_list(50), "limit", child=True),
        override("list-1mb-within-cap", lambda: b"args:\n" + b"- a\n" * 260_000,
                 "unknown field 'args'", child=True),
        override("over-cap-configured", POD_SPEC_OK * 10, "limit",
                 env={"PODTEMPLATE_MAX_FILE_BYTES": "100"}),
        Case("many-env-entries", _with_tasks({"ov.yaml": _env_entries(20_000)}),
             ("tasks.py:one", "--override", "ov.yaml"), "", exit=0, child=True),
        override("directive-abuse", "%YAML 9.9\n---\na: b\n", "ov.yaml"),
        override("control-chars", "apiVersion: v1\nkind: PodTemplate\ntemplate:\n  metadata:"
                 " {labels: {a: \"\\x1b[31mred\"}}\n", "labels.a"),
        override("very-long-key", "nodeSelector: {" + "k" * 5000 + ": v}\n", "line 1"),
        override("long-block-key", "nodeSelector:\n  \"" + "k" * 5000 + "\": v\n",
                 "line 2"),
    ]


def template_file_cases() -> list[Case]:
    t = _template_text
    return [
        template("apps-v1", GOOD_TEMPLATE.replace("apiVersion: v1", "apiVersion: apps/v1"),
                 "apiVersion"),
        template("no-api-version", GOOD_TEMPLATE.replace("apiVersion: v1\n", ""), "apiVersion"),
        template("kind-deployment", GOOD_TEMPLATE.replace("PodTemplate", "Deployment"),
                 "Deployment"),
        template("kind-missing", GOOD_TEMPLATE.replace("kind: PodTemplate\n", ""), "kind"),
        template("kind-lowercase", GOOD_TEMPLATE.replace("PodTemplate", "podtemplate"),
                 "podtemplate"),
        template("misplaced-spec", "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: default}"
                 "\nspec: {nodeSelector: {a: b}}\n", "belongs under template"),
        template("typo-top-key", GOOD_TEMPLATE.replace("template:", "templat:"), "templat"),
        template("unknown-top-key", GOOD_TEMPLATE + "extra: 1\n", "extra"),
        template("template-list", "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: default}"
                 "\ntemplate: [1, 2]\n", "template must be a mapping"),
        template("template-scalar", "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: "
                 "default}\ntemplate: yes\n", "template must be a mapping"),
        template("template-unknown-key", GOOD_TEMPLATE.replace("  spec:", "  specs:"), "specs"),
        template("metadata-scalar", GOOD_TEMPLATE.replace("metadata: {name: default}",
                                                          "metadata: default"), "metadata"),
        template("metadata-list", GOOD_TEMPLATE.replace("metadata: {name: default}",
                                                        "metadata: [default]"), "metadata"),
        template("name-int", GOOD_TEMPLATE.replace("{name: default}", "{name: 123}"),
                 "metadata.name"),
        template("name-traversal", GOOD_TEMPLATE.replace("{name: default}",
                                                         "{name: ../../etc/passwd}"),
                 "metadata.name"),
        template("name-uppercase", GOOD_TEMPLATE.replace("{name: default}", "{name: GPU}"),
                 "metadata.name"),
        template("name-empty", GOOD_TEMPLATE.replace("{name: default}", "{name: ''}"),
                 "metadata.name"),
        template("name-missing", GOOD_TEMPLATE.replace("{name: default}", "{}"), "metadata.name"),
        template("namespace-uppercase", GOOD_TEMPLATE.replace("{name: default}",
                                                              "{name: default, namespace: GPU}"),
                 "metadata.namespace"),
        template("namespace-traversal",
                 GOOD_TEMPLATE.replace("{name: default}", "{name: default, namespace: ../x}"),
                 "metadata.namespace"),
        template("namespace-too-long",
                 GOOD_TEMPLATE.replace("{name: default}", "{name: default, namespace: "
                                       + "a" * 64 + "}"), "metadata.namespace"),
        template("labels-list", t("    nodeSelector: {a: b}\n").replace(
            "template:\n", "template:\n  metadata: {labels: [a, b]}\n"), "labels"),
        template("labels-int-value", GOOD_TEMPLATE.replace(
            "template:\n", "template:\n  metadata: {labels: {team: 5}}\n"), "team"),
        template("metadata-typo", GOOD_TEMPLATE.replace(
            "template:\n", "template:\n  metadata: {labells: {team: ml}}\n"), "labells"),
        template("object-metadata-typo", GOOD_TEMPLATE.replace("{name: default}",
                                                               "{name: default, namspace: a}"),
                 "namspace"),
        template("kubectl-get-output-ok", GOOD_TEMPLATE.replace(
            "{name: default}", "{name: default, uid: 1b2c, resourceVersion: '42', "
            "creationTimestamp: '2024-01-01T00:00:00Z'}"), "", exit=0),
        template("annotations-list", GOOD_TEMPLATE.replace(
            "template:\n", "template:\n  metadata: {annotations: [a]}\n"), "annotations"),
        template("label-key-bad", GOOD_TEMPLATE.replace(
            "template:\n", "template:\n  metadata: {labels: {'bad key!': x}}\n"), "bad key"),
        template("spec-unknown-field", t("    nodeSelectr: {a: b}\n"), "nodeSelectr"),
        template("spec-list", t("").replace("  spec:\n", "  spec: [a]\n"), "spec"),
        template("container-bad-name", t("    containers: [{name: Primary_1}]\n"), "Primary_1"),
        template("duplicate-container", t("    containers: [{name: a}, {name: a}]\n"), "twice"),
        template("negative-cpu", t("    containers: [{name: primary, resources: "
                                   "{requests: {cpu: -2}}}]\n"), "negative"),
        template("negative-memory-text", t("    containers: [{name: primary, resources: "
                                           "{limits: {memory: '-1Gi'}}}]\n"), "negative"),
        template("quantity-bool", t("    containers: [{name: primary, resources: "
                                    "{requests: {cpu: true}}}]\n"), "cpu"),
        template("quantity-words", t("    containers: [{name: primary, resources: "
                                     "{requests: {cpu: 4 cores}}}]\n"), "4 cores"),
        template("cpu-int-accepted", t("    containers: [{name: primary, resources: "
                                       "{requests: {cpu: 2, memory: 1.5}}}]\n"), "", exit=0),
        template("defined-twice", GOOD_TEMPLATE + "---\n" + GOOD_TEMPLATE, "defined twice"),
        template("uppercase-suffix", GOOD_TEMPLATE, "", name="default.YAML", exit=0),
        template("yml-suffix", GOOD_TEMPLATE, "", name="default.yml", exit=0),
        Case("skipped-file-warns", _with_tasks({"platform.yaml": PLATFORM,
                                                "templates/default.yaml": GOOD_TEMPLATE,
                                                "templates/notes.txt": "hi"}),
             ("tasks.py", "--platform", "platform.yaml"), "", exit=0),
        Case("fifo-in-folder", _with_tasks({"platform.yaml": PLATFORM,
                                            "templates/default.yaml": GOOD_TEMPLATE,
                                            "templates/pipe.yaml": Fifo()}),
             ("tasks.py", "--platform", "platform.yaml"), "named pipe", child=True),
        Case("device-in-folder", _with_tasks({"platform.yaml": PLATFORM,
                                              "templates/default.yaml": GOOD_TEMPLATE,
                                              "templates/zero.yaml": Link("/dev/zero")}),
             ("tasks.py", "--platform", "platform.yaml"), "device", child=True),
        Case("folder-named-yaml", _with_tasks({"platform.yaml": PLATFORM,
                                               "templates/default.yaml": GOOD_TEMPLATE,
                                               "templates/sub.yaml": Folder()}),
             ("tasks.py", "--platform", "platform.yaml"), "", exit=0),
        Case("dangling-link-in-folder", _with_tasks({"platform.yaml": PLATFORM,
                                                     "templates/default.yaml": GOOD_TEMPLATE,
                                                     "templates/gone.yaml": Link("nowhere")}),
             ("tasks.py", "--platform", "platform.yaml"), "gone.yaml"),
        Case("other-kind-in-folder", _with_tasks({
            "platform.yaml": PLATFORM, "templates/default.yaml": GOOD_TEMPLATE,
            "templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"}),
            ("tasks.py", "--platform", "platform.yaml"), "ConfigMap"),
        Case("list-in-folder", _with_tasks({"platform.yaml": PLATFORM,
                                            "templates/default.yaml": GOOD_TEMPLATE,
                                            "templates/l.yaml": "- a\n"}),
             ("tasks.py", "--platform", "platform.yaml"), "l.yaml"),
        Case("symlink-loop-in-folder", _with_tasks({"platform.yaml": PLATFORM,
                                                    "templates/default.yaml": GOOD_TEMPLATE,
                                                    "templates/loop": Link(".")}),
             ("tasks.py", "--platform", "platform.yaml"), "", exit=0, child=True),
        Case("passwd-in-folder", _with_tasks({"platform.yaml": PLATFORM,
                                              "templates/default.yaml": GOOD_TEMPLATE,
                                              "templates/passwd.yaml": Link("/etc/passwd")}),
             ("tasks.py", "--platform", "platform.yaml"), "passwd.yaml"),
        template("bomb-in-folder", _bomb(), "alias", name="bomb.yaml", child=True),
        template("pod-kind-ok", "apiVersion: v1\nkind: Pod\nmetadata: {name: default}\n"
                 "spec: {containers: []}\n", "PodTemplate"),
    ]


def platform_cases() -> list[Case]:
    return [
        platform("unknown-key", "namespace: team\nnamespce: x\n", "namespce"),
        platform("list", "- a\n", "mapping"),
        platform("scalar", "hello\n", "mapping"),
        platform("multi-document", "namespace: a\n---\nnamespace: b\n", "one mapping"),
        platform("duplicate-key", "namespace: a\nnamespace: b\n", "'namespace' is given twice"),
        platform("namespace-uppercase", "namespace: Team\n", "Team"),
        platform("namespace-int", "namespace: 5\n", "namespace"),
        platform("default-negative", "defaultResources: {requests: {cpu: '-1'}}\n", "negative"),
        platform("default-exponent", "defaultResources: {limits: {memory: 1e9999999}}\n",
                 "1e9999999"),
        platform("default-exa-suffix", "defaultResources: {requests: {memory: 1Ei}, limits: "
                 "{memory: 2Ei}}\n", "", exit=0),
        platform("default-words", "defaultResources: {requests: {cpu: lots}}\n", "lots"),
        platform("default-resources-list", "defaultResources: [cpu]\n", "defaultResources"),
        platform("default-requests-list", "defaultResources: {requests: [cpu]}\n", "requests"),
        platform("templates-missing", "templates: nowhere\n", "nowhere", exit=0),
        platform("templates-missing-used", "templates: nowhere\ndefaultTemplate: default\n",
                 "nowhere"),
        platform("interruptible-bad", "interruptible: {nodeSelectr: {a: b}}\n", "nodeSelectr"),
        platform("interruptible-list", "interruptible: [a]\n", "interruptible"),
        platform("default-image-list", "defaultImage: [a]\n", "defaultImage"),
        platform("bomb", _bomb(), "alias", child=True),
        Case("platform-fifo", _with_tasks({"platform.yaml": Fifo()}),
             ("tasks.py", "--platform", "platform.yaml"), "named pipe", child=True),
        Case("platform-dev-null", _with_tasks({}), ("tasks.py", "--platform", "/dev/null"),
             "/dev/null"),
        Case("platform-folder", _with_tasks({"p.yaml": Folder()}),
             ("tasks.py", "--platform", "p.yaml"), "p.yaml"),
        Case("platform-missing", _with_tasks({}), ("tasks.py", "--platform", "nope.yaml"),
             "nope.yaml"),
        Case("templates-is-file", _with_tasks({"t.yaml": GOOD_TEMPLATE,
                                               "platform.yaml": "defaultTemplate: default\n"}),
             ("tasks.py", "--platform", "platform.yaml", "--templates", "t.yaml"), "t.yaml"),
    ]


SHADOW = {"tasks.py": TASKS}


def module_cases() -> list[Case]:
    header = "from podtemplate import task, PodTemplate, Resources, Role\n"

    def one(decorator_args: str, body: str = "") -> str:
        return f"{header}{body}\n@task({decorator_args})\ndef one() -> None: ...\n"

    return [
        module("prints-at-import", "print('hello from import')\n" + TASKS, "", exit=0),
        module("prints-at-import-stdout", "print('---\\nkind: Secret')\n" + TASKS, "", exit=0,
               output=None),
        module("writes-fd1-at-import-stdout", "import os\nos.write(1, b'kind: Secret\\n')\n"
               + TASKS, "", exit=0, child=True, output=None),
        module("writes-fd1-at-import", "import os\nos.write(1, b'raw bytes\\n')\n" + TASKS, "",
               exit=0, child=True),
        module("sys-exit-0", "import sys\nsys.exit(0)\n", "sys.exit(0)", child=True),
        module("sys-exit-3", "import sys\nsys.exit(3)\n", "sys.exit(3)", child=True),
        module("raise-systemexit-text", "raise SystemExit('bye')\n", "sys.exit('bye')",
               child=True),
        module("endless-loop", "while True:\n    pass\n", "longer than",
               env={"PODTEMPLATE_IMPORT_TIMEOUT": "1"}, child=True),
        module("sleep-forever", "import time\ntime.sleep(3600)\n", "longer than",
               env={"PODTEMPLATE_IMPORT_TIMEOUT": "1"}, child=True),
        module("swallowing-loop", "while True:\n    try:\n        pass\n    except Exception:\n"
               "        pass\n", "longer than", env={"PODTEMPLATE_IMPORT_TIMEOUT": "1"},
               child=True),
        module("memory-hog", "x = bytearray(8 << 30)\n", "MemoryError", child=True),
        module("raises-at-import", "raise RuntimeError('boom')\n", "RuntimeError: boom"),
        module("syntax-error", "def (:\n", "SyntaxError"),
        module("recursion-at-import", "def f():\n    return f()\nf()\n", "RecursionError"),
        module("missing-import", "import no_such_module_anywhere\n", "no_such_module_anywhere"),
        module("missing-plugin", "import podtemplate_nonexistent\n", "nonexistent"),
        module("no-tasks", "x = 1\n", "no tasks"),
        module("duplicate-task-names", header + "@task(name='same', image='a')\ndef a(): ...\n"
               "@task(name='same', image='a')\ndef b(): ...\n", "same"),
        Case("shadow-kubernetes", {**SHADOW, "kubernetes.py": "x = 1\n"}, ("tasks.py",),
             "kubernetes", child=True),
        Case("shadow-yaml", {**SHADOW, "yaml.py": "x = 1\n"}, ("tasks.py",), "yaml", child=True),
        Case("shadow-stdlib-json", {**SHADOW, "json.py": "x = 1\n"}, ("tasks.py",), "json",
             child=True),
        Case("shadow-package", {**SHADOW, "pydantic/__init__.py": "x = 1\n"}, ("tasks.py",),
             "pydantic", child=True),
        Case("shadow-podtemplate", {**SHADOW, "podtemplate.py": "x = 1\n"}, ("tasks.py",),
             "podtemplate", child=True),
        module("env-none", one("image='a', env={'TOKEN': None}"), "TOKEN"),
        module("env-object", one("image='a', env={'A': object()}"), "env.A"),
        module("env-list", one("image='a', env={'A': [1]}"), "env.A"),
        module("env-dict-value", one("image='a', env={'A': {'b': 1}}"), "env.A"),
        module("env-nan", one("image='a', env={'A': float('nan')}"), "env.A"),
        module("env-not-mapping", one("image='a', env=['A=1']"), "env"),
        module("env-bad-name", one("image='a', env={'A=B': 'x'}"), "A=B"),
        module("env-int-ok", one("image='a', env={'A': 1, 'B': True, 'C': 1.5}"), "", exit=0),
        module("replicas-bool", header + "from podtemplate_dask import Dask\n@task(image='a', "
               "task_config=Dask(workers=Role(replicas=True)))\ndef one(): ...\n", "replicas"),
        module("replicas-int32", header + "from podtemplate_dask import Dask\n@task(image='a', "
               "task_config=Dask(workers=Role(replicas=2**31)))\ndef one(): ...\n", "replicas"),
        module("replicas-float", header + "from podtemplate_dask import Dask\n@task(image='a', "
               "task_config=Dask(workers=Role(replicas=2.0)))\ndef one(): ...\n", "replicas"),
        module("replicas-zero", header + "from podtemplate_dask import Dask\n@task(image='a', "
               "task_config=Dask(workers=Role(replicas=0)))\ndef one(): ...\n", "replicas"),
        module("ray-replicas-bool", header + "from podtemplate_ray import Ray, WorkerGroup\n"
               "@task(image='a', task_config=Ray(worker_groups=[WorkerGroup(name='w', "
               "replicas=True)]))\ndef one(): ...\n", "replicas"),
        module("labels-list", one("image='a', pod_template=PodTemplate(labels=['a'])"),
               "labels"),
        module("annotations-string", one("image='a', pod_template=PodTemplate("
                                         "annotations='a=b')"), "annotations"),
        module("labels-int-value", one("image='a', pod_template=PodTemplate("
                                       "labels={'a': 1})"), "labels.a"),
        module("resources-extra-list", one("image='a', requests=Resources(extra=['a'])"),
               "extra"),
        module("memory-negative", one("image='a', requests=Resources(memory='-1')"),
               "negative"),
        module("cpu-negative", one("image='a', requests=Resources(cpu=-2)"), "negative"),
        module("memory-exponent", one("image='a', limits=Resources(memory='1e9999999')"),
               "1e9999999"),
        module("memory-exponent-default-resources", one("image='a', limits=Resources("
                                                        "memory='1e9999999')"), "memory"),
        module("cpu-bool", one("image='a', requests=Resources(cpu=True)"), "cpu"),
        module("cpu-inf", one("image='a', requests=Resources(cpu=float('inf'))"), "inf"),
        module("cpu-int-ok", one("image='a', requests=Resources(cpu=2, memory=1.5)"), "",
               exit=0),
        module("requests-dict", one("image='a', requests={'cpu': '1'}"), "requests"),
        module("command-string", header + "from podtemplate_container import ContainerTask\n"
               "t = ContainerTask(name='c', image='a', command='ls -l')\n", "command"),
        module("pod-spec-string", one("image='a', pod_template=PodTemplate('nodeSelector')"),
               "pod_spec"),
        module("pod-spec-cyclic", one("image='a', pod_template=PodTemplate(d)",
                                      "d = {}\nd['nodeSelector'] = d\n"), "contains itself"),
        module("pod-spec-5000-deep", one("image='a', pod_template=PodTemplate(d)",
                                         "d = c = {}\nfor _ in range(5000):\n"
                                         "    c['affinity'] = c = {}\n"), "levels deep"),
        module("pod-spec-set", one("image='a', pod_template=PodTemplate({'nodeSelector': "
                                   "{'a': {1, 2}}})"), "set"),
        module("pod-spec-int-key", one("image='a', pod_template=PodTemplate({1: 'a'})"), "key"),
        module("pod-template-dict", one("image='a', pod_template={'nodeSelector': {}}"),
               "pod_template"),
        module("task-name-invalid", header + "@task(name='Bad Name', image='a')\ndef f(): ...\n",
               "Bad Name"),
        module("task-name-int", header + "@task(name=123, image='a')\ndef f(): ...\n", "123"),
        module("task-name-traversal", header + "@task(name='../x', image='a')\ndef f(): ...\n",
               "../x"),
        module("image-empty", one("image='  '"), "image"),
        module("image-int", one("image=5"), "image"),
        module("interruptible-string", one("image='a', interruptible='yes'"), "interruptible"),
        module("primary-name-invalid", one("image='a', pod_template=PodTemplate("
                                           "primary_container_name='Main')"), "Main"),
        module("delete-primary-refilled", one("image='a', pod_template=PodTemplate({"
                                              "'containers': [{'name': 'primary', "
                                              "'$patch': 'delete'}]})"), "", exit=0),
        module("patch-bad-value", one("image='a', pod_template=PodTemplate({'containers': "
                                      "[{'name': 'primary', '$patch': 'explode'}]})"),
               "$patch"),
        module("shell-script-2mb", header + "from podtemplate_shell import ShellTask\n"
               "t = ShellTask(name='s', image='a', script='echo hi\\n' * 300000)\n", "script"),
        module("gpu-mismatch", one("image='a', requests=Resources(gpu=1), "
                                   "limits=Resources(gpu=2)"), "gpu"),
    ]


def cli_cases() -> list[Case]:
    deep_json = "[" * 100_000 + "]" * 100_000
    return [
        cli("output-is-file", ("tasks.py",), "names a file", files={"out": "keep me\n"}),
        cli("output-under-file", ("tasks.py",), "afile", files={"afile": "x\n"},
            output="afile/sub"),
        cli("output-unwritable", ("tasks.py",), "cannot write", output="/proc/podtemplate/out"),
        cli("output-task-file-is-folder", ("tasks.py",), "two.yaml",
            files={"out/two.yaml": Folder()}),
        cli("output-first-task-file-is-folder", ("tasks.py",), "one.yaml",
            files={"out/one.yaml/keep": "x"}),
        cli("output-symlink-replaced", ("tasks.py",), "", exit=0,
            files={"outside.txt": "untouched\n", "out/one.yaml": Link("../outside.txt")}),
        cli("output-old-files-kept-on-error", ("tasks.py", "bad.py"), "Bad Name",
            files={"out/one.yaml": "old\n", "bad.py": "from podtemplate import task\n"
                   "@task(name='Bad Name', image='a')\ndef f(): ...\n"}),
        cli("output-nested-not-created", ("tasks.py", "--input", "n=x"), "n",
            output="a/b/c/out"),
        cli("second-task-fails-nothing-written", ("tasks.py", "bad.py"), "TOKEN",
            files={"bad.py": "from podtemplate import task\n@task(image='a', "
                   "env={'TOKEN': None})\ndef zzz(): ...\n"}),
        cli("stdout-nothing-on-error", ("tasks.py", "--input", "n=x"), "n", output=None),
        cli("input-not-pair", ("tasks.py", "--input", "n"), "NAME=VALUE"),
        cli("input-empty-name", ("tasks.py", "--input", "=3"), "NAME=VALUE"),
        cli("input-bad-int", ("tasks.py", "--input", "n=three"), "three"),
        cli("input-huge-int", ("tasks.py", "--input", "n=" + "9" * 5000), "inputs.n"),
        cli("input-unknown", ("tasks.py", "--input", "epochs=3"), "epochs"),
        cli("input-deep-json", ("tasks.py", "--input", "items=" + deep_json), "items"),
        cli("input-json-500-deep", ("tasks.py", "--input", "items=" + "[" * 500 + "]" * 500),
            "levels deep"),
        cli("input-json-not-list", ("tasks.py", "--input", "items={}"), "items"),
        cli("input-json-inf", ("tasks.py", "--input", "items=[1e999]"), "inf"),
        cli("input-json-bad", ("tasks.py", "--input", "items=[1,"), "items"),
        cli("namespace-invalid", ("tasks.py", "--namespace", "Bad_NS"), "Bad_NS"),
        cli("namespace-megabyte", ("tasks.py", "--namespace", "N" * 100_000), "NNN"),
        cli("target-selector-huge", ("tasks.py:" + "x" * 100_000,), "not found"),
        cli("namespace-traversal", ("tasks.py", "--namespace", "../etc"), "../etc"),
        Case("templates-root", _with_tasks({"platform.yaml": "defaultTemplate: default\n"}),
             ("tasks.py", "--platform", "platform.yaml", "--templates", "/"), "more than",
             child=True),
        cli("templates-flag-missing", ("tasks.py", "--templates", "nowhere"), "", exit=0),
        cli("override-missing", ("tasks.py", "--override", "nope.yaml"), "nope.yaml"),
        cli("override-folder", ("tasks.py", "--override", "d.yaml"), "d.yaml",
            files={"d.yaml": Folder()}),
        cli("override-fifo", ("tasks.py", "--override", "p.yaml"), "named pipe",
            files={"p.yaml": Fifo()}, child=True),
        cli("override-dev-zero", ("tasks.py", "--override", "/dev/zero"), "device", child=True),
        cli("override-dev-urandom", ("tasks.py", "--override", "/dev/urandom"), "device",
            child=True),
        cli("target-missing", ("nothere.py",), "nothere.py"),
        cli("target-not-python", ("data.txt",), "data.txt", files={"data.txt": "hello"}),
        cli("target-folder-empty", ("empty",), "no tasks", files={"empty/readme": "x"}),
        cli("target-unknown-task", ("tasks.py:nope",), "nope"),
        cli("target-fifo-py", ("pipe.py",), "pipe.py: not a regular file", files={"pipe.py": Fifo()}, child=True),
        cli("target-module-missing", ("no.such.module",), "no.such.module"),
        cli("target-dotted-garbage", ("..",), ".."),
        cli("env-limit-garbage", ("tasks.py", "--override", "ov.yaml"),
            "PODTEMPLATE_MAX_FILE_BYTES", files={"ov.yaml": POD_SPEC_OK},
            env={"PODTEMPLATE_MAX_FILE_BYTES": "lots"}),
        cli("env-timeout-negative", ("tasks.py",), "PODTEMPLATE_IMPORT_TIMEOUT",
            env={"PODTEMPLATE_IMPORT_TIMEOUT": "-5"}),
        cli("override-deletes-primary", ("tasks.py", "--override", "ov.yaml"), "primary",
            files={"ov.yaml": "containers:\n- name: primary\n  $patch: delete\n"}),
        cli("override-patch-misuse", ("tasks.py", "--override", "ov.yaml"), "$patch",
            files={"ov.yaml": "containers:\n- $patch: sideways\n"}),
        cli("override-system-label", ("tasks.py", "--override", "ov.yaml"), "", exit=0,
            files={"ov.yaml": "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: o}\n"
                   "template:\n  metadata: {labels: {podtemplate.io/task: other}}\n"}),
    ]


def coverage_cases() -> list[Case]:
    def coverage(case_id: str, files: dict[str, Content], args: tuple[str, ...], says: str,
                 **options: Any) -> Case:
        return Case(case_id, files, args, says, command="coverage", output=None, **options)

    return [
        coverage("schema-empty", {"s.json": ""}, ("--schema", "s.json"), "s.json"),
        coverage("schema-not-json", {"s.json": "[[[["}, ("--schema", "s.json"), "JSON"),
        coverage("schema-deep", {"s.json": "[" * 100_000}, ("--schema", "s.json"), "s.json"),
        coverage("schema-list", {"s.json": "[]"}, ("--schema", "s.json"), "OpenAPI"),
        coverage("schema-no-components", {"s.json": '{"components": 5}'},
                 ("--schema", "s.json"), "s.json"),
        coverage("unknown-plugin", {}, ("--plugin", "nope"), "nope"),
        coverage("output-is-folder", {"out/keep": "x"}, ("--plugin", "python", "-o", "out"),
                 "folder"),
    ]


def all_cases() -> list[Case]:
    groups = {"encoding": encoding_cases, "yaml": yaml_cases, "template": template_file_cases,
              "platform": platform_cases, "module": module_cases, "cli": cli_cases,
              "coverage": coverage_cases}
    return [dataclasses.replace(case, id=f"{group}/{case.id}")
            for group, make in groups.items() for case in make()]


def api_cases() -> list[ApiCase]:
    import podtemplate

    pt: Any = podtemplate  # the calls below misuse the API on purpose

    def make_task(**kwargs: Any) -> Any:
        return pt.task(**kwargs)(lambda: None)

    cyclic: dict[str, Any] = {}
    cyclic["nodeSelector"] = cyclic
    deep: dict[str, Any] = {}
    node = deep
    for _ in range(5000):
        node["affinity"] = node = {}
    deep_list: list[Any] = []
    cursor = deep_list
    for _ in range(5000):
        cursor.append([])
        cursor = cursor[0]
    return [
        ApiCase("labels-list", lambda: pt.PodTemplate(labels=["a"]), "labels"),
        ApiCase("annotations-string", lambda: pt.PodTemplate(annotations="a=b"), "annotations"),
        ApiCase("resources-extra-list", lambda: pt.Resources(extra=["a"]), "extra"),
        ApiCase("resources-extra-int-key", lambda: pt.Resources(extra={1: "1"}), "extra"),
        ApiCase("resources-negative", lambda: pt.Resources(memory="-1"), "negative"),
        ApiCase("resources-exponent", lambda: pt.Resources(memory="1e9999999"), "exponent"),
        ApiCase("resources-huge-int", lambda: pt.Resources(cpu=10**5000), "too large"),
        ApiCase("render-strings", lambda: pt.render(["str"]), "str"),
        ApiCase("render-string", lambda: pt.render("my-task"), "my-task"),
        ApiCase("render-none", lambda: pt.render(None), "None"),
        ApiCase("render-int", lambda: pt.render(5), "5"),
        ApiCase("pod-spec-cyclic", lambda: pt.PodTemplate(pod_spec=cyclic), "contains itself"),
        ApiCase("pod-spec-5000-deep", lambda: pt.PodTemplate(pod_spec=deep), "levels deep"),
        ApiCase("pod-spec-deep-list", lambda: pt.PodTemplate(pod_spec={"x": deep_list}),
                "levels deep"),
        ApiCase("role-replicas-bool", lambda: pt.Role(replicas=True), "replicas"),
        ApiCase("role-replicas-huge", lambda: pt.Role(replicas=2**40), "replicas"),
        ApiCase("role-env-none", lambda: pt.Role(env={"A": None}), "env.A"),
        ApiCase("task-env-object", lambda: make_task(env={"A": object()}), "env.A"),
        ApiCase("task-env-none", lambda: make_task(env={"TOKEN": None}), "TOKEN"),
        ApiCase("task-requests-str", lambda: make_task(requests="1"), "requests"),
        ApiCase("task-command-str", lambda: pt.Task(name="t", task_type="python",
                                                    command="ls"), "command"),
        ApiCase("from-yaml-cycle", lambda: pt.PodTemplate.from_yaml("a: &a [*a]\n"), "cycle"),
        ApiCase("from-yaml-duplicate", lambda: pt.PodTemplate.from_yaml("a: 1\na: 2\n"),
                "twice"),
        ApiCase("from-manifest-list", lambda: pt.PodTemplate.from_manifest([1]), "mapping"),
        ApiCase("platform-not-mapping", lambda: pt.load_platform(None, namespace=["a"]),
                "namespace"),
        ApiCase("task-on-int", lambda: pt.task(name="x")(5), "function"),
        ApiCase("task-config-object", lambda: make_task(task_config=object()), "task_config"),
        ApiCase("role-unknown-argument", lambda: pt.Role(replicass=2), "replicass"),
        ApiCase("platform-bad-quantity",
                lambda: pt.Platform(defaultResources={"requests": {"cpu": "lots"}}), "lots"),
        ApiCase("platform-unknown-key", lambda: pt.Platform(bogus=1), "bogus"),
        ApiCase("with-overrides-dict", lambda: make_task().with_overrides(pod_template={}),
                "pod_template"),
    ]
