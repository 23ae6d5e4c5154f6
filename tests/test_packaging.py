"""What a published package needs: the licence, the citation with the package's
version, the changelog, and metadata that say which Python is supported.

The built wheel and sdist themselves (their contents, ``twine check``, the report run
from the installed wheel) are checked by ``.ci/wheel_check``, which CI runs after the
tests: building needs the network for the build backend, so it is not a unit test.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import mrrstats

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_citation_version_is_the_package_version():
    cff = (ROOT / "CITATION.cff").read_text(encoding="utf-8")
    assert re.search(r"^cff-version: 1\.2\.0$", cff, flags=re.M)
    for key in ("message", "title", "authors", "type", "license"):
        assert re.search(rf"^{key}:", cff, flags=re.M), f"CITATION.cff has no {key}"
    version = re.search(r"^version:\s*['\"]?([^'\"\s]+)['\"]?\s*$", cff, flags=re.M)
    assert version is not None, "CITATION.cff has no version"
    assert version.group(1) == mrrstats.__version__  # mrrstats/version.py is the one place


def test_licence_is_mit_and_shipped():
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert text.startswith("MIT License")
    assert "Copyright (c) 2026 mrrstats developers" in text
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    assert project["license-files"] == ["LICENSE"]


def test_changelog_has_an_unreleased_section():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "keepachangelog.com" in text
    assert re.search(r"^## \[Unreleased\]", text, flags=re.M)


def test_supported_python_is_said_everywhere():
    project = PYPROJECT["project"]
    assert project["requires-python"] == ">=3.11"
    classifiers = set(project["classifiers"])
    for minor in ("3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {minor}" in classifiers
    assert "Typing :: Typed" in classifiers
    assert (ROOT / "mrrstats" / "py.typed").exists()
    assert "py.typed" in PYPROJECT["tool"]["setuptools"]["package-data"]["mrrstats"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "3.11, 3.12 and 3.13" in readme
    install = (ROOT / "docs" / "getting-started" / "index.md").read_text(encoding="utf-8")
    assert "3.11, 3.12 and 3.13" in install


def test_release_tools_are_in_an_extra():
    extras = PYPROJECT["project"]["optional-dependencies"]["test"]
    assert any(req.startswith("build") for req in extras)
    assert any(req.startswith("twine") for req in extras)
