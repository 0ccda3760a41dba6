"""Consumes a process, produces the end of every process it started: its children, theirs, and
so on, whatever process group or session they moved to.

An agent may start processes its run's process group does not hold: an ``exec:`` agent's
``setsid`` grandchild, a daemon that double-forks. On Linux a worker process is made a *child
subreaper* (`become_subreaper`), so that a descendant orphaned on the way is re-parented to it
rather than to init, and the tree below a process is read from ``/proc``. Elsewhere only
process groups are ended.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import signal
import sys
import threading
from collections.abc import Callable

__all__ = ["become_subreaper", "descendants", "end_descendants", "end_tree", "has_children"]

PR_SET_CHILD_SUBREAPER = 36
"""``prctl`` option (linux/prctl.h): orphans below this process are re-parented to it."""
SWEEP_ROUNDS = 64
"""Stop-and-look rounds before the stopped processes are killed: each round stops the ones found
(a stopped process forks no more), so only a tree still growing after this many rounds — a fork
bomb outrunning the scan — keeps a process out of the kill."""
PROC = "/proc"


def become_subreaper() -> bool:
    """Makes this process the reaper of its orphaned descendants (Linux); whether it could."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return bool(libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)


def has_children() -> bool:
    """Whether this process has a child, alive or not yet reaped; reaps those that ended, which
    nothing else waits for once a run is over. A system call, not a scan of ``/proc``: a run
    that started no process, the usual case, costs nothing more."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        if pid == 0:
            return True


@functools.cache
def _lists_children() -> bool:
    """Whether the kernel lists each thread's children (``CONFIG_PROC_CHILDREN``); without the
    lists, every process's parent is read instead."""
    return os.path.exists(f"{PROC}/self/task/{threading.get_native_id()}/children")


def _listed_children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):  # it ended meanwhile
        for task in os.listdir(f"{PROC}/{pid}/task"):
            with contextlib.suppress(OSError), open(f"{PROC}/{pid}/task/{task}/children") as file:
                found.extend(map(int, file.read().split()))
    return found


def _children_by_parent() -> dict[int, list[int]]:
    """Every process's children, from one read of each ``/proc/<pid>/stat``."""
    below: dict[int, list[int]] = {}
    for entry in os.scandir(PROC):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"{PROC}/{entry.name}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()  # the name may hold spaces
        except OSError:
            continue  # it ended meanwhile
        below.setdefault(int(fields[1]), []).append(int(entry.name))
    return below


def descendants(pid: int) -> list[int]:
    """Every process below ``pid``, parents before their children; none where there is no
    ``/proc``."""
    if not os.path.isdir(PROC):
        return []
    if _lists_children():
        return _walk(pid, _listed_children)
    below = _children_by_parent()
    return _walk(pid, lambda parent: below.get(parent, []))


def _walk(root: int, children_of: Callable[[int], list[int]]) -> list[int]:
    found: list[int] = []
    frontier = [root]
    while frontier:
        frontier = [c for p in frontier for c in children_of(p) if c not in found and c != root]
        found.extend(frontier)
    return found


def _signal(pid: int, number: int, *, group: bool = False) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        (os.killpg if group else os.kill)(pid, number)


def end_descendants(pid: int) -> None:
    """Kills (``SIGKILL``) every process below ``pid`` and reaps those that are this process's
    children. Each process found is stopped first, so that none forks while the tree is read
    again; then all are killed, each with the process group it leads."""
    stopped: list[int] = []
    for _ in range(SWEEP_ROUNDS):
        fresh = [found for found in descendants(pid) if found not in stopped]
        if not fresh:
            break
        for found in fresh:
            _signal(found, signal.SIGSTOP)
        stopped.extend(fresh)
    for found in stopped:
        _signal(found, signal.SIGKILL, group=True)
        _signal(found, signal.SIGKILL)
    for found in stopped:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(found, 0)


def end_tree(pid: int) -> None:
    """Kills ``pid``, the process group it leads and every process below it; the caller reaps
    ``pid`` itself."""
    _signal(pid, signal.SIGSTOP)
    end_descendants(pid)
    _signal(pid, signal.SIGKILL, group=True)
    _signal(pid, signal.SIGKILL)
