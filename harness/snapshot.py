"""The snapshot extension's documented import path; it lives with the pytest face
(`unsolvable.plugin.snapshot`), because it is syrupy's."""

from unsolvable.plugin.snapshot import TerminationRecordExtension, mask_addresses

__all__ = ["TerminationRecordExtension", "mask_addresses"]
