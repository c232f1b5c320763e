"""Fixtures the kit's pytest plugin gives every test that enables it (core's and each
plugin's): a plugin manager over what is installed, and a folder of template files."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pluggy
import pytest

from ..dispatch import build_plugin_manager

__all__ = ["plugin_manager", "templates_dir"]


@pytest.fixture(scope="session")
def plugin_manager() -> pluggy.PluginManager:
    """One manager over the installed plugins, built once per test session."""
    return build_plugin_manager()


@pytest.fixture
def templates_dir(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """``templates_dir({file name: YAML text})`` writes the (dedented) files into a fresh
    template folder and returns it."""

    def make(files: dict[str, str]) -> Path:
        folder = tmp_path / "templates"
        folder.mkdir(exist_ok=True)
        for name, text in files.items():
            (folder / name).write_text(textwrap.dedent(text))
        return folder

    return make
