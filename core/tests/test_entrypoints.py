"""The entry-point reader gives the standard library's answer (the plain path it replaces at
start-up), on this installation and on made-up ones."""

from __future__ import annotations

import sys
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from podtemplate.files import entrypoints
from podtemplate.files.entrypoints import entry_points


def _standard(group: str) -> list[tuple[str, str]]:
    return [(point.name, point.value) for point in metadata.entry_points(group=group)]


def _ours(group: str) -> list[tuple[str, str]]:
    return [(point.name, point.value) for point in entry_points(group)]


@pytest.mark.parametrize("group", ["podtemplate", "console_scripts", "pytest11", "none.such"])
def test_this_installation_reads_as_the_standard_library_reads_it(group: str) -> None:
    assert entrypoints._plain_path()
    assert _ours(group) == _standard(group)
    if group == "podtemplate":
        assert {"pytorch", "spark"} <= {name for name, _ in _ours(group)}


def _dist(folder: Path, name: str, version: str, text: str, kind: str = "dist-info") -> None:
    info = folder / f"{name.replace('-', '_')}-{version}.{kind}"
    info.mkdir(parents=True)
    header = "PKG-INFO" if kind == "egg-info" else "METADATA"
    (info / header).write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\n"
                               "Name: not-this-one\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(text, encoding="utf-8")


def test_made_up_installations_read_as_the_standard_library_reads_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    _dist(first, "pt-alpha", "1.0", "# a comment\n[podtemplate]\nalpha = alpha.plugin:Alpha\n"
          "# another\n[other]\nx = y\n")
    _dist(first, "pt-beta", "2.0", "[podtemplate]\n  beta =  beta.plugin:Beta [extra]  \n")
    _dist(first, "pt-old", "0.1", "[podtemplate]\nold = old_module\n", kind="egg-info")
    _dist(second, "pt.alpha", "9.9", "[podtemplate]\nshadowed = never:Seen\n")  # same name
    _dist(second, "pt-gamma", "3.0", "[podtemplate]\ngamma = gamma:Gamma\n")
    (second / "pt_broken-1.0.dist-info").mkdir()  # no entry_points.txt
    monkeypatch.setattr(sys, "path", [str(tmp_path / "missing"), str(first), str(second)])
    assert entrypoints._plain_path()
    ours = _ours("podtemplate")
    assert ours == _standard("podtemplate")
    assert ("shadowed", "never:Seen") not in ours
    assert len(ours) == 4
    found = {point.name: point for point in entry_points("podtemplate")}
    assert found["beta"].attr == "Beta" and found["beta"].module == "beta.plugin"
    assert found["old"].attr is None
    assert found["alpha"].distribution == ("pt-alpha", "1.0")
    assert found["old"].distribution == ("pt-old", "0.1")


def test_an_archive_on_the_path_is_left_to_the_standard_library(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = tmp_path / "plugins.zip"
    with zipfile.ZipFile(archive, "w") as bundle:
        bundle.writestr("pt_zip-1.0.dist-info/METADATA", "Name: pt-zip\nVersion: 1.0\n")
        bundle.writestr("pt_zip-1.0.dist-info/entry_points.txt",
                        "[podtemplate]\nzipped = zipped:Zipped\n")
    monkeypatch.setattr(sys, "path", [str(archive)])
    assert not entrypoints._plain_path()
    ours = entry_points("podtemplate")
    assert [(point.name, point.value) for point in ours] == [("zipped", "zipped:Zipped")]
    assert ours[0].distribution == ("pt-zip", "1.0")


def test_loading_names_the_attribute_or_the_module(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "made_up_plugin.py").write_text("class Outer:\n    class Inner:\n        pass\n",
                                                encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    point = entrypoints.InstalledEntryPoint("x", "made_up_plugin:Outer.Inner", "g", None)
    assert point.load().__qualname__ == "Outer.Inner"
    module = entrypoints.InstalledEntryPoint("x", "made_up_plugin", "g", None).load()
    assert module.__name__ == "made_up_plugin"


@pytest.mark.parametrize("text", [
    "[ podtemplate ]\nspaced = spaced:Spaced\n",  # the standard library keeps the spaces
    "[[podtemplate]]\nbracketed = bracketed:Bracketed\n",  # and strips every bracket
    "[podtemplate]\r\ncrlf = crlf:Crlf\r\n\tuntidy\t=\tuntidy.plugin:Untidy  [extra] \n",
])
def test_section_headers_and_whitespace_read_as_the_standard_library_reads_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    _dist(tmp_path, "pt-odd", "1.0", text)
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    assert _ours("podtemplate") == _standard("podtemplate")


def test_a_module_entry_point_with_extras_names_the_module(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "extra_module_plugin.py").write_text("LOADED = True\n", encoding="utf-8")
    _dist(tmp_path, "pt-extras", "1.0", "[podtemplate]\nextras = extra_module_plugin [fast]\n")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    (standard,) = metadata.entry_points(group="podtemplate")
    (ours,) = entry_points("podtemplate")
    assert (ours.module, ours.attr) == (standard.module, standard.attr) == (
        "extra_module_plugin", None)
    assert ours.load().LOADED


def test_a_path_object_on_sys_path_reads_as_the_standard_library_reads_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``sys.path.append(Path(...))`` is common in a task module; the standard library
    takes it."""
    _dist(tmp_path, "pt-pathlike", "1.0", "[podtemplate]\npathlike = pathlike:Pathlike\n")
    monkeypatch.setattr(sys, "path", [tmp_path])
    assert _ours("podtemplate") == _standard("podtemplate") == [("pathlike", "pathlike:Pathlike")]


def test_a_metadata_folder_of_upper_case_suffix_is_named_by_its_metadata(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The standard library takes the distribution's name from the folder's name only
    where its suffix is in lower case; else from its metadata (here shadowing pt-real)."""
    first, second = tmp_path / "first", tmp_path / "second"
    upper = first / "Pt_Other-1.0.DIST-INFO"
    upper.mkdir(parents=True)
    (upper / "METADATA").write_text("Name: pt-real\nVersion: 1.0\n", encoding="utf-8")
    (upper / "entry_points.txt").write_text("[podtemplate]\nupper = upper:Upper\n",
                                            encoding="utf-8")
    _dist(second, "pt-real", "2.0", "[podtemplate]\nreal = real:Real\n")
    _dist(second, "pt-other", "3.0", "[podtemplate]\nother = other:Other\n")
    monkeypatch.setattr(sys, "path", [str(first), str(second)])
    assert _ours("podtemplate") == _standard("podtemplate") == [
        ("upper", "upper:Upper"), ("other", "other:Other")]


def test_an_empty_metadata_file_is_passed_over_for_pkg_info(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    info = tmp_path / "pt_empty-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("", encoding="utf-8")
    (info / "PKG-INFO").write_text("Name: pt-empty\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[podtemplate]\nempty = empty:Empty\n",
                                           encoding="utf-8")
    monkeypatch.setattr(sys, "path", [str(tmp_path)])
    (standard,) = metadata.entry_points(group="podtemplate")
    (ours,) = entry_points("podtemplate")
    assert ours.distribution == (standard.dist.metadata["Name"], standard.dist.version) == (
        "pt-empty", "1.0")
