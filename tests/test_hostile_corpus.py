"""The hostile corpus (tests/hostile/corpus.py) against the promise of the README: bad
input prints one line naming what is wrong and where, exits 2, writes nothing and leaves
the inputs as they were; good input, however large or odd, renders (exit 0)."""

from __future__ import annotations

import hashlib
import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from podtemplate import PodTemplateError
from podtemplate.cli import main
from podtemplate.testing import assert_valid_pod
from podtemplate.testing.cli import rendered_documents

_spec = importlib.util.spec_from_file_location(
    "hostile_corpus", Path(__file__).parent / "hostile" / "corpus.py")
assert _spec is not None and _spec.loader is not None
corpus = importlib.util.module_from_spec(_spec)
sys.modules["hostile_corpus"] = corpus  # dataclasses look their module up
_spec.loader.exec_module(corpus)

CASES = corpus.all_cases()
API_CASES = corpus.api_cases()
CHILD_MEMORY = 1 << 30  # address space of a child case: far below the bombs' needs
CHILD_SECONDS = 60
MAX_LINES = 3  # an error line, plus at most a line or two the task module printed

_CHILD = """
import resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from podtemplate.cli import main
main(sys.argv[2:], prog_name="podtemplate")
"""


def test_corpus_is_large_and_unique() -> None:
    ids = [case.id for case in CASES] + [f"api-{case.id}" for case in API_CASES]
    assert len(ids) == len(set(ids))
    assert len(ids) >= 150


def _materialize(root: Path, files: dict[str, Any]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, corpus.Fifo):
            os.mkfifo(path)
        elif isinstance(content, corpus.Link):
            path.symlink_to(content.target)
        elif isinstance(content, corpus.Folder):
            path.mkdir()
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content())


def _snapshot(root: Path) -> dict[str, str]:
    """Every entry under ``root``: its kind and, for regular files, a digest."""
    entries = {}
    for path in sorted(root.rglob("*")):
        relative = str(path.relative_to(root))
        if path.is_symlink():
            entries[relative] = f"link:{os.readlink(path)}"
        elif path.is_fifo():
            entries[relative] = "fifo"
        elif path.is_dir():
            entries[relative] = "dir"
        else:
            entries[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return entries


def _run_in_process(case: Any, root: Path, args: list[str],
                    monkeypatch: pytest.MonkeyPatch) -> tuple[int, str, str]:
    for key, value in case.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(root)
    result = CliRunner().invoke(main, args, catch_exceptions=True)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"escaped the guard: {result.exception!r}") from result.exception
    return result.exit_code, result.stdout, result.stderr


def _run_child(case: Any, root: Path, args: list[str]) -> tuple[int, str, str]:
    env = {**os.environ, **case.env, "PYTHONDONTWRITEBYTECODE": "1"}
    # -P: like the installed command, the child does not put its folder on sys.path
    done = subprocess.run([sys.executable, "-P", "-c", _CHILD, str(CHILD_MEMORY), *args], cwd=root,
                          env=env, capture_output=True, text=True, timeout=CHILD_SECONDS,
                          check=False)
    return done.returncode, done.stdout, done.stderr


def _check_outcome(case: Any, code: int, stdout: str, stderr: str) -> None:
    assert "Traceback" not in stderr + stdout, stderr
    lines = [line for line in stderr.splitlines() if not line.startswith("warning:")]
    errors = [line for line in lines if line.startswith("error:")]
    if case.exit == 0:
        assert code == 0, stderr
        assert not errors, stderr
        return
    assert code == case.exit, f"exit {code}, expected {case.exit}: {stderr}"
    assert len(errors) == 1 and len(lines) <= MAX_LINES, stderr
    assert case.says in errors[0], f"{case.says!r} not in {errors[0]!r}"
    assert len(errors[0]) < 600, errors[0]
    assert stdout == "", "bad input wrote to stdout"


def _check_output(case: Any, root: Path, before: dict[str, str], stdout: str,
                  code: int) -> None:
    after = _snapshot(root)
    output = case.output
    new = set(after) - set(before)
    if code != 0 or output is None or output.startswith("/"):
        assert after == before, f"left behind or changed: {sorted(new) or 'changed files'}"
        if code == 0 and output is None:
            for document in rendered_documents(stdout):  # only what the tasks rendered
                assert "podtemplate.io/task" in document["metadata"]["labels"], document
                if document["kind"] == "Pod":
                    assert_valid_pod(document)
        return
    inside = {entry for entry in after if entry == output or entry.startswith(output + "/")}
    assert {k: v for k, v in after.items() if k not in inside} == {
        k: v for k, v in before.items() if k not in inside}, "inputs changed"
    assert not any(".podtemplate-" in entry for entry in after), "scratch folder left"
    for entry in inside:
        path = root / entry
        if path.is_file() and not path.is_symlink() and entry not in before:
            for document in rendered_documents(path.read_text(encoding="utf-8")):
                if document.get("kind") == "Pod":
                    assert_valid_pod(document)


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_hostile_case(case: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                      forget_task_modules: None) -> None:
    root = tmp_path / "case"
    root.mkdir()
    _materialize(root, case.files)
    before = _snapshot(root)
    args = [case.command, *case.args, *(["-o", case.output] if case.output else [])]
    if case.child:
        code, stdout, stderr = _run_child(case, root, args)
    else:
        code, stdout, stderr = _run_in_process(case, root, args, monkeypatch)
    _check_outcome(case, code, stdout, stderr)
    _check_output(case, root, before, stdout, code)
    if case.id == "cli/output-symlink-replaced":
        assert (root / "outside.txt").read_text() == "untouched\n"
        assert not (root / "out" / "one.yaml").is_symlink()


@pytest.mark.parametrize("case", API_CASES, ids=[case.id for case in API_CASES])
def test_hostile_api_case(case: Any) -> None:
    with pytest.raises(PodTemplateError) as caught:
        case.call()
    text = str(caught.value)
    assert "\n" not in text and len(text) < 600, text
    assert case.says in text, f"{case.says!r} not in {text!r}"


def test_child_limit_holds() -> None:
    """The address-space limit of the child cases is real: a child that asks for more
    than it fails (so a bomb case passing means the bomb was refused, not absorbed)."""
    code = (f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({CHILD_MEMORY}, "
            f"{CHILD_MEMORY}))\nb = bytearray({2 * CHILD_MEMORY})\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=CHILD_SECONDS, check=False)
    assert done.returncode != 0 and "MemoryError" in done.stderr
