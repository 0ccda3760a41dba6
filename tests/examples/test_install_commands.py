"""The install commands the pages show work where the package is: on no index."""

from __future__ import annotations

from tests._docs import TEXTS


def test_a_new_environment_installs_the_package_from_where_it_lives() -> None:
    """A command that makes an environment and installs the package there by its name alone
    fails with "No matching distribution found": it must say where the package comes from."""
    commands = [
        line
        for text in TEXTS.values()
        for line in text.splitlines()
        if " venv " in line and "pytest-unsolvable" in line
    ]
    assert commands
    assert [line for line in commands if "pytest-unsolvable[" in line and " @ " not in line] == []
