"""Fuzzing the files a user gives ``podtemplate render``: hypothesis makes malformed YAML
text, near-valid pod templates and platform files, and each must keep the promise:
exit 0 or 2, at most one error line, never a traceback, nothing written on error, the
input file unchanged."""

from __future__ import annotations

import hashlib
import itertools
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from podtemplate import (
    InternalError,
    Platform,
    PodTemplate,
    PodTemplateError,
    Resources,
    Role,
    render,
    task,
)
from podtemplate.cli import main
from podtemplate.testing import assert_valid_pod
from podtemplate.testing.cli import rendered_documents
from podtemplate.testing.sizing import examples

TASKS = '''from podtemplate import task

@task(image="python:3.11")
def fuzzed() -> None: ...
'''

KEYS = ["apiVersion", "kind", "metadata", "name", "namespace", "template", "spec",
        "containers", "initContainers", "image", "env", "value", "resources", "requests",
        "limits", "cpu", "memory", "labels", "annotations", "nodeSelector", "tolerations",
        "volumes", "$patch", "<<", "defaultTemplate", "defaultResources", "templates",
        "fallbackNamespace", "interruptible", "gpuResourceName", "primary", "x"]
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-2**70, max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(["v1", "PodTemplate", "Pod", "primary", "default", "500m", "-1",
                     "1e9999999", "4Gi", "GPU", "../x", "", "delete", "replace", "a=b"]),
    st.text(max_size=12))
DOCUMENTS = st.recursive(
    SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)), children,
                        max_size=5)),
    max_leaves=25)
PREFIX = "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: default}\n"
_counter = itertools.count()


@st.composite
def yaml_texts(draw: Any) -> Any:
    """YAML-ish text: a dumped document, maybe cut, spliced or given YAML's sharp edges."""
    document = draw(DOCUMENTS)
    text = yaml.safe_dump(document, allow_unicode=True) if draw(st.booleans()) else \
        yaml.safe_dump({"template": {"spec": document}})
    if draw(st.booleans()):
        text = PREFIX + text if "apiVersion" not in text else text
    mutation = draw(st.sampled_from(["none", "cut", "insert", "duplicate", "alias", "tab"]))
    if mutation == "cut" and text:
        text = text[: draw(st.integers(0, len(text)))]
    elif mutation == "insert":
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(
            ["&a ", "*a", "[", "{", ": ", "\t", "!!python/object:os.system ", "---\n",
             "\x00", "- ", "'", '"', "<<: *a\n", "%TAG ! x\n"])) + text[at:]
    elif mutation == "duplicate":
        lines = text.splitlines(keepends=True)
        if lines:
            text += draw(st.sampled_from(lines))
    elif mutation == "alias":
        text = "base: &a " + draw(st.sampled_from(["[x, *a]", "{k: v}", "[x, x]"])) + "\n" \
            + text + "more: [*a, *a, *a]\n"
    elif mutation == "tab":
        text = text.replace("  ", "\t", 1)
    return text


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("fuzz")
    (root / "fuzz_tasks.py").write_text(TASKS)
    yield root


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _render(workspace: Path, files: dict[str, bytes], option: list[str]) -> None:
    case = workspace / f"case{next(_counter)}"
    case.mkdir()
    try:
        for name, data in files.items():
            (case / name).parent.mkdir(parents=True, exist_ok=True)
            (case / name).write_bytes(data)
        before = {name: _digest(case / name) for name in files}
        out = case / "out"
        args = ["render", str(workspace / "fuzz_tasks.py"), *[
            str(case / part) if part in files or part == "templates" else part
            for part in option], "-o", str(out)]
        result = CliRunner().invoke(main, args, catch_exceptions=True)
        stderr = result.stderr
        assert result.exception is None or isinstance(result.exception, SystemExit), \
            repr(result.exception)
        assert result.exit_code in (0, 2), stderr
        assert "Traceback" not in stderr
        errors = [line for line in stderr.splitlines() if line.startswith("error:")]
        if result.exit_code == 2:
            assert len(errors) == 1 and not out.exists(), stderr
        else:
            for path in out.iterdir():
                for document in rendered_documents(path.read_text()):
                    assert_valid_pod(document)
        assert before == {name: _digest(case / name) for name in files}
    finally:
        shutil.rmtree(case)


FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", examples(60))), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FUZZ
@given(text=yaml_texts())
def test_fuzzed_override(workspace: Path, text: str) -> None:
    _render(workspace, {"ov.yaml": text.encode()}, ["--override", "ov.yaml"])


@FUZZ
@given(text=yaml_texts())
def test_fuzzed_template(workspace: Path, text: str) -> None:
    _render(workspace, {"platform.yaml": b"templates: templates\ndefaultTemplate: default\n",
                        "templates/default.yaml": text.encode()},
            ["--platform", "platform.yaml"])


@FUZZ
@given(text=yaml_texts())
def test_fuzzed_platform(workspace: Path, text: str) -> None:
    _render(workspace, {"platform.yaml": text.encode()}, ["--platform", "platform.yaml"])


@FUZZ
@given(data=st.binary(max_size=200))
def test_fuzzed_bytes(workspace: Path, data: bytes) -> None:
    _render(workspace, {"ov.yaml": data}, ["--override", "ov.yaml"])


PYTHON_VALUES = st.recursive(
    st.one_of(SCALARS, st.sampled_from([object(), b"bytes", {1, 2}, (1, 2), 1j])),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.integers(), st.none()), children,
                        max_size=4)),
    max_leaves=15)


@FUZZ
@given(spec=PYTHON_VALUES, labels=PYTHON_VALUES, annotations=PYTHON_VALUES)
def test_fuzzed_pod_template_api(spec: Any, labels: Any, annotations: Any) -> None:
    """Whatever a Python caller passes, PodTemplate accepts it or raises our error."""
    try:
        PodTemplate(spec, labels=labels, annotations=annotations)
    except PodTemplateError as error:
        assert "\n" not in str(error)


@FUZZ
@given(values=st.dictionaries(st.sampled_from(["cpu", "memory", "gpu", "extra", "replicas",
                                               "env", "image", "requests", "limits"]),
                              PYTHON_VALUES, max_size=4))
def test_fuzzed_resources_and_role_api(values: dict[str, Any]) -> None:
    for make in (Resources, Role):
        try:
            make(**{k: v for k, v in values.items() if k in _ARGUMENTS[make]})
        except PodTemplateError as error:
            assert "\n" not in str(error)


_ARGUMENTS: dict[Any, set[str]] = {
    Resources: {"cpu", "memory", "gpu", "extra"},
    Role: {"replicas", "env", "image", "requests", "limits"},
}


def _fuzzed_function() -> None:
    """The function the fuzzed task definitions decorate."""


@FUZZ
@given(values=st.dictionaries(st.sampled_from(["name", "image", "command", "env", "requests",
                                               "limits", "pod_template", "pod_template_name",
                                               "task_config", "interruptible"]),
                              PYTHON_VALUES, max_size=4))
def test_fuzzed_task_api(values: dict[str, Any]) -> None:
    """@task with arbitrary arguments: a task, or our one-line error; a task accepted
    renders, or fails as bad input (never as an internal error)."""
    try:
        defined = task(**values)(_fuzzed_function)
        render(defined, platform=Platform(defaultImage="python:3.11"))
    except InternalError as error:
        raise AssertionError(f"accepted at definition, broke the render: {error}") from error
    except PodTemplateError as error:
        assert "\n" not in str(error)


QUANTITIES = st.one_of(st.sampled_from(["1", "500m", "0", "1Gi", "1e3", "-0", "0.5", "1e-30",
                                        "1e30", "9Ei", "1E", ".5", 1, 0, 2.5, 1e-9]),
                       st.integers(0, 10**20))
RESOURCE_MAPS = st.dictionaries(st.sampled_from(["cpu", "memory", "nvidia.com/gpu"]),
                                QUANTITIES, max_size=2)
CONTAINERS = st.fixed_dictionaries(
    {"name": st.sampled_from(["primary", "default", "side", "default-init"])},
    optional={"image": st.sampled_from(["a", "b:1"]),
              "env": st.lists(st.fixed_dictionaries({"name": st.sampled_from(["A", "B"]),
                                                     "value": st.text(max_size=3)}),
                              max_size=2),
              "resources": st.fixed_dictionaries({}, optional={"requests": RESOURCE_MAPS,
                                                               "limits": RESOURCE_MAPS}),
              "$patch": st.sampled_from(["delete", "replace", "merge"]),
              "args": st.lists(st.text(max_size=3), max_size=2)})
POD_SPECS = st.fixed_dictionaries({}, optional={
    "containers": st.lists(CONTAINERS, max_size=3),
    "initContainers": st.lists(CONTAINERS, max_size=2),
    "nodeSelector": st.dictionaries(st.sampled_from(["a", "b"]), st.text(max_size=3),
                                    max_size=2),
    "restartPolicy": st.sampled_from(["Never", "Always", "OnFailure"]),
    "tolerations": st.lists(st.fixed_dictionaries(
        {"key": st.sampled_from(["a", "b"])},
        optional={"$patch": st.sampled_from(["delete", "replace"])}), max_size=2),
    "overhead": st.dictionaries(st.just("cpu"), QUANTITIES, max_size=1),
    "$patch": st.sampled_from(["replace", "merge"])})
SETTINGS = st.dictionaries(st.sampled_from(["cpu", "memory", "gpu"]), QUANTITIES, max_size=3)


@FUZZ
@given(spec=POD_SPECS, override=st.one_of(st.none(), POD_SPECS), requests=SETTINGS,
       limits=SETTINGS, defaults=st.dictionaries(st.sampled_from(["cpu", "memory"]),
                                                 QUANTITIES, max_size=2),
       env=st.dictionaries(st.sampled_from(["A", "B", "X_1"]), st.one_of(
           st.text(max_size=5), st.integers(), st.booleans(),
           st.floats(allow_nan=False, allow_infinity=False)), max_size=3))
def test_fuzzed_near_valid_definitions_render(spec: dict[str, Any], override: Any,
                                              requests: dict[str, Any], limits: dict[str, Any],
                                              defaults: dict[str, Any],
                                              env: dict[str, Any]) -> None:
    """Near-valid pod specs, quantities and settings: what is accepted at definition
    renders to valid pods or fails as bad input, never as an internal error."""
    try:
        defined = task(image="img", env=env, requests=Resources(**requests),
                       limits=Resources(**limits), pod_template=PodTemplate(spec))(
            _fuzzed_function)
        if override is not None:
            defined = defined.with_overrides(pod_template=PodTemplate(override))
        platform = Platform(defaultImage="python:3.11",
                            defaultResources={"requests": defaults, "limits": defaults})
        for manifest in render(defined, platform=platform):
            assert_valid_pod(manifest)
    except InternalError as error:
        raise AssertionError(f"an internal error: {error}") from error
    except PodTemplateError as error:
        assert "\n" not in str(error)
