"""The wheel installs one package named after the project: the repository's three folders under
``unsolvable``, and nothing under a generic top-level name that a user's project may have too."""

from __future__ import annotations

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).parents[1]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]


def _installed_as(folder: Path) -> str:
    """The package a folder of the repository installs as, by pyproject.toml's package-dir."""
    top, *rest = folder.relative_to(ROOT).parts
    (package,) = (name for name, where in SETUPTOOLS["package-dir"].items() if where == top)
    return ".".join([package, *rest])


def test_the_package_list_names_every_folder_of_the_three() -> None:
    folders = [
        init.parent
        for top in SETUPTOOLS["package-dir"].values()
        for init in (ROOT / top).rglob("__init__.py")
    ]
    assert sorted(map(_installed_as, folders)) == sorted(SETUPTOOLS["packages"])


def test_the_wheel_puts_everything_under_unsolvable(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q"]
    subprocess.run([*command, "-w", str(tmp_path), str(ROOT)], check=True, timeout=300)
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert tops == {"unsolvable"}
    expected = {"unsolvable/py.typed", "unsolvable/scenarios/catalog/fan_out.py"}
    assert expected <= set(names)
    assert "unsolvable/fake_tools/tools/permission.py" in names
