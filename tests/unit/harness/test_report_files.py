"""Report files: written whole, with the mode the process's umask gives a new file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from unsolvable.reports._files import write_file


@pytest.mark.parametrize(("umask", "mode"), [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_report_gets_the_mode_the_umask_gives(tmp_path: Path, umask: int, mode: int) -> None:
    previous = os.umask(umask)
    try:
        written = write_file(tmp_path / "report.md", "# report\n")
    finally:
        os.umask(previous)
    assert stat.S_IMODE(written.stat().st_mode) == mode
    assert written.read_text() == "# report\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"], "no temporary file is left"
