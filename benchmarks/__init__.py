"""Benchmarks of the harness's own speed: scripts that print numbers, never timed tests."""
