"""Writing rendered files all or nothing.

Called only once every manifest is rendered: until then nothing exists, not even the
folder. Each file is written in a scratch folder beside its target and moved in with
one atomic rename; a file it replaces is kept (hard-linked) until every move has
succeeded. If any step fails, the files moved in are taken out, the replaced ones put
back, and the folders this run created removed: none of this run's files remain.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..errors import OutputError

__all__ = ["write_files", "write_file", "stale_files"]

# The label every object a render writes carries in its own metadata: a file with an
# object without it (a PodMonitor selecting a task's pods by it) is the user's, never
# removed by --clean.
_RENDERED_MARK = "podtemplate.io/task"


def _check_target(folder: Path, names: Sequence[str]) -> None:
    if folder.exists() and not folder.is_dir():
        raise OutputError("-o names a file, not a folder", file=str(folder),
                          fix="give a folder for one file per task, or '-' for stdout")
    for name in names:
        target = folder / name
        if target.is_dir() and not target.is_symlink():
            raise OutputError("is a folder, so the task's file cannot be written there",
                              file=str(target), fix="move the folder away or choose another -o")


def _make_folders(folder: Path, created: list[Path]) -> None:
    """Create ``folder`` and its missing parents, recording each in ``created``."""
    missing = []
    for path in (folder, *folder.parents):
        if path.exists() or path.is_symlink():
            break
        missing.append(path)
    for path in reversed(missing):
        path.mkdir()
        created.append(path)


def _undo(moved: list[Path], kept: dict[Path, Path], scratch: Path | None,
          created: list[Path]) -> None:
    """Take this run's files out (putting back the ones they replaced), then remove the
    scratch folder and the folders this run created."""
    for target in dict.fromkeys([*moved, *kept]):
        with contextlib.suppress(OSError):
            if target in kept:
                os.replace(kept[target], target)
            else:
                target.unlink()
    if scratch is not None:
        _remove_tree(scratch)
    for path in reversed(created):
        with contextlib.suppress(OSError):
            path.rmdir()


def _write_scratch(scratch: Path, files: Sequence[tuple[str, str]]) -> None:
    for name, text in files:
        with open(scratch / name, "w", encoding="utf-8") as stream:
            stream.write(text)


def _move_in(scratch: Path, folder: Path, names: Sequence[str], moved: list[Path],
             kept: dict[Path, Path]) -> None:
    for name in names:
        target = folder / name
        if target.exists() or target.is_symlink():
            backup = scratch / f".previous-{name}"
            try:
                os.link(target, backup, follow_symlinks=False)
            except OSError:  # no hard links here: set it aside instead (then restorable)
                os.replace(target, backup)
            kept[target] = backup
        os.replace(scratch / name, target)  # a symlink target is replaced, never followed
        moved.append(target)


def stale_files(folder: Path, names: Sequence[str]) -> tuple[list[Path], list[Path]]:
    """Manifest files (what ``kubectl apply -f`` reads: .yaml, .yml, .json) in ``folder``
    that a render writing ``names`` would not write: (those an earlier render wrote, the
    others). Hidden files are ignored."""
    if not folder.is_dir():
        return [], []
    ours: list[Path] = []
    others: list[Path] = []
    keep = set(names)
    for path in sorted(folder.iterdir()):
        if path.name in keep or path.name.startswith(".") or \
                path.suffix not in (".yaml", ".yml", ".json") or not path.is_file() or \
                path.is_symlink():
            continue
        (ours if _holds_mark(path) else others).append(path)
    return ours, others


def _holds_mark(path: Path) -> bool:
    """Whether every object of the file (a ``List``'s items) carries the task label in
    its own ``metadata.labels``, as every object a render writes does."""
    import yaml

    try:
        with open(path, encoding="utf-8", errors="replace") as stream:
            text = stream.read(1 << 20)
        if _RENDERED_MARK not in text:  # most files of the user's, without parsing them
            return False
        documents = [d for d in yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader",
                                                                   yaml.SafeLoader))
                     if d is not None]
    except (OSError, yaml.YAMLError):
        return False
    objects = [item for d in documents for item in (
        _items(d) if isinstance(d, dict) and d.get("kind") == "List" else [d])]
    return bool(objects) and all(
        isinstance(o, dict) and isinstance(o.get("metadata"), dict)
        and isinstance(o["metadata"].get("labels"), dict)
        and _RENDERED_MARK in o["metadata"]["labels"] for o in objects)


def _items(document: dict[str, Any]) -> list[Any]:
    items = document.get("items")
    return items if isinstance(items, list) and items else [None]  # None: not an object


def write_files(folder: Path, files: Sequence[tuple[str, str]],
                remove: Sequence[Path] = ()) -> None:
    """Write ``(file name, text)`` pairs into ``folder``, all or nothing; then remove the
    files of ``remove`` (earlier renders' files, for ``--clean``)."""
    names = [name for name, _ in files]
    _check_target(folder, names)
    created: list[Path] = []
    moved: list[Path] = []
    kept: dict[Path, Path] = {}
    scratch: Path | None = None
    try:
        _make_folders(folder, created)
        import tempfile  # here: a render to standard output writes no file

        scratch = Path(tempfile.mkdtemp(dir=folder, prefix=".podtemplate-"))
        _write_scratch(scratch, files)
        _move_in(scratch, folder, names, moved, kept)
    except BaseException as error:
        _undo(moved, kept, scratch, created)
        if isinstance(error, OSError):
            raise OutputError(f"cannot write: {error.strerror or error}; nothing was written",
                              file=str(error.filename or folder),
                              fix="choose a folder you can write with -o, or '-' for "
                              "stdout") from None
        raise
    _remove_tree(scratch)
    for path in remove:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def _file_mode() -> int:
    """The mode ``open()`` gives a new file: 0666 less the umask (0644 usually)."""
    umask = os.umask(0o022)
    os.umask(umask)
    return 0o666 & ~umask


def write_file(path: Path, text: str) -> None:
    """Write one file all or nothing (a scratch file beside it, then one rename)."""
    if path.is_dir():
        raise OutputError("-o names a folder; this command writes one file", file=str(path),
                          fix="give a file path, or '-' for stdout")
    if not path.parent.is_dir():
        raise OutputError("the folder of -o does not exist", file=str(path),
                          fix="create the folder first, or give another path")
    scratch: str | None = None
    try:
        import tempfile  # here: a render to standard output writes no file

        descriptor, scratch = tempfile.mkstemp(dir=path.parent, prefix=".podtemplate-")
        os.fchmod(descriptor, _file_mode())  # mkstemp's 0600 would hide the file
        with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
            stream.write(text)
        os.replace(scratch, path)
    except OSError as error:
        if scratch is not None:
            with contextlib.suppress(OSError):
                os.unlink(scratch)
        raise OutputError(f"cannot write: {error.strerror or error}; nothing was written",
                          file=str(path), fix="choose a path you can write with -o") from None
