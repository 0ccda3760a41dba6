"""The snapshot extension's documented import path; it lives with the pytest face
(`harness.plugin.snapshot`), because it is syrupy's."""

from harness.plugin.snapshot import TerminationRecordExtension, mask_addresses

__all__ = ["TerminationRecordExtension", "mask_addresses"]
