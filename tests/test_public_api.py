"""Each package's ``__all__`` is sorted (as ruff sorts it) and names only what exists."""

from __future__ import annotations

import importlib

import pytest


def _isort_style(name: str) -> tuple[int, str]:
    """Constants, then classes, then functions: the order ruff's RUF022 keeps."""
    kind = 0 if name.isupper() else 1 if name[0].isupper() else 2
    return kind, name


PACKAGES = [
    "unsolvable",
    "unsolvable.fake_tools",
    "unsolvable.scenarios",
    "unsolvable.agents",
    "unsolvable.imports",
]


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_sorted_and_resolves(package: str) -> None:
    module = importlib.import_module(package)
    assert module.__all__ == sorted(module.__all__, key=_isort_style)
    assert all(hasattr(module, name) for name in module.__all__)
