"""Reading an input file safely: a regular file only (a named pipe would block forever, a
device never ends), within the size cap, decoded as UTF-8 with or without a BOM."""

from __future__ import annotations

import codecs
import os
import stat
from pathlib import Path

from ..errors import YamlError
from ..limits import limits, variable_for

__all__ = ["read_text", "check_text_size"]

_OTHER_ENCODINGS = (  # longest BOM first: UTF-32 LE starts like UTF-16 LE
    (codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
    (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"),
)
_SAVE_AS_UTF8 = "save the file as UTF-8"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "not a regular file"


def _too_large(size: int, source: str) -> YamlError:
    cap = limits().max_file_bytes
    return YamlError(f"file is {size} bytes, over the {cap}-byte limit for input files",
                     file=source, fix=f"split the file, or raise the limit with "
                     f"{variable_for('max_file_bytes')}=<bytes>")


def check_text_size(text: str, source: str) -> None:
    """Refuse YAML text given in memory that is over the file size cap."""
    if len(text) > limits().max_file_bytes:
        raise _too_large(len(text), source)


def _read_bytes(path: Path, source: str) -> bytes:
    try:
        before = path.stat()
        if not stat.S_ISREG(before.st_mode):
            raise YamlError(f"is {_kind(before.st_mode)}, not a regular file; refused",
                            file=source, fix="give the path of a YAML file")
        cap = limits().max_file_bytes
        if before.st_size > cap:
            raise _too_large(before.st_size, source)
        # O_NONBLOCK: if the path was swapped for a pipe since stat, open does not hang.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        with os.fdopen(descriptor, "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                raise YamlError("is not a regular file; refused", file=source,
                                fix="give the path of a YAML file")
            data = stream.read(cap + 1)
    except OSError as error:
        reason = "file not found" if isinstance(error, FileNotFoundError) else (
            f"cannot read file: {error.strerror or error}")
        raise YamlError(reason, file=source,
                        fix="check the path and its permissions") from None
    if len(data) > cap:
        raise _too_large(len(data), source)
    return data


def decode(data: bytes, source: str) -> str:
    """UTF-8 text of ``data`` (a UTF-8 BOM dropped); any other encoding is named."""
    if data.startswith(codecs.BOM_UTF8):
        data = data[len(codecs.BOM_UTF8):]
    for bom, name in _OTHER_ENCODINGS:
        if data.startswith(bom):
            raise YamlError(f"file is {name}-encoded; only UTF-8 is read", file=source,
                            fix=_SAVE_AS_UTF8)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        raise YamlError(f"file is not UTF-8: byte 0x{data[error.start]:02x} on line {line} "
                        "cannot be decoded", file=source, fix=_SAVE_AS_UTF8) from None
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise YamlError(f"file holds a NUL byte on line {line} (UTF-16 without a BOM, or "
                        "not a text file)", file=source, fix=_SAVE_AS_UTF8)
    return text


def read_text(path: str | Path) -> str:
    """The text of the regular file ``path``, checked as above; every failure is a
    :class:`YamlError` naming the file."""
    source = str(path)
    return decode(_read_bytes(Path(path), source), source)
