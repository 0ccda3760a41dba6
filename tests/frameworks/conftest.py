"""Framework tests run offline: see `_offline`."""

from tests.frameworks._offline import offline

__all__ = ["offline"]
