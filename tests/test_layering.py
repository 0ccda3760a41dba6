"""Dependency rules that keep the house easy to change, checked on the source with ``ast``.

The engine (``harness`` minus its faces) imports neither ``scenarios``, ``fake_tools``, pytest nor
a framework; ``fake_tools`` does not import ``scenarios``; only faces may.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
FACES = {
    "harness/_cli.py",
    "harness/plugin.py",
    "harness/_options.py",
    "harness/_ledger.py",
    "harness/_collect.py",
}
FACE_DIRS = ("harness/adapters/", "harness/wire/", "harness/snapshot")
FORBIDDEN = {
    "harness": {"scenarios", "fake_tools", "pytest", "_pytest", "syrupy", "hypothesis", "respx"},
    "fake_tools": {"scenarios", "pytest", "_pytest"},
    "scenarios": {"pytest", "_pytest", "harness.cli._main"},
}


def _top_level_imports(path: Path) -> set[str]:
    names = set()
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def _engine_files(package: str) -> list[Path]:
    files = sorted((ROOT / package).rglob("*.py"))
    return [
        f
        for f in files
        if (rel := f.relative_to(ROOT).as_posix()) not in FACES and not rel.startswith(FACE_DIRS)
    ]


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_package_imports_only_what_its_layer_may(package: str) -> None:
    offences = []
    for path in _engine_files(package):
        for name in _top_level_imports(path):
            if name.split(".")[0] in FORBIDDEN[package] or name in FORBIDDEN[package]:
                offences.append(f"{path.relative_to(ROOT)} imports {name}")
    assert not offences
