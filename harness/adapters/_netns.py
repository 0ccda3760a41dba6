"""Consumes the harness's loopback ports and a Unix socket for each, produces the same addresses
inside a network namespace of the agent's own (``unshare -rn``): a relay, so that an agent cut
off from every network — no route, no name lookup — still reaches the fake model and tools (the
wire's port, and the MCP server's).

Sockets cross network namespaces only as files, so each side relays TCP through a Unix socket per
port: the harness side (`serve_unix`) and, inside the namespace, ``python -m
unsolvable.adapters._netns``, which brings the namespace's loopback up, listens on the harness's
ports and runs the agent.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence

__all__ = ["close_relay", "isolated", "serve_unix", "unavailable"]

CHUNK = 65_536
SIOCGIFFLAGS, SIOCSIFFLAGS, IFF_UP = 0x8913, 0x8914, 0x1
"""From <linux/sockios.h> and <net/if.h>: read and set an interface's flags; the "up" flag."""
IFREQ = "16sH14x"
"""``struct ifreq`` as these two calls use it: the interface name, then its flags."""
LOOPBACK = "127.0.0.1"


@functools.cache
def unavailable() -> str | None:
    """Why this platform cannot run an agent loopback-only, or ``None`` when it can: tried once
    (``unshare`` of a no-op), so a flag that cannot work is refused before any run starts."""
    if not sys.platform.startswith("linux"):
        return f"network namespaces are Linux-only, and this is {sys.platform}"
    if shutil.which("unshare") is None:
        return "the unshare command (util-linux) is not installed"
    tried = subprocess.run(
        ["unshare", "--map-root-user", "--net", "true"], capture_output=True, text=True
    )
    if tried.returncode != 0:
        said = tried.stderr.strip() or f"status {tried.returncode}"
        return (
            f"unshare --map-root-user --net fails here ({said}): unprivileged user namespaces "
            "are off (sysctl user.max_user_namespaces, kernel.unprivileged_userns_clone) or a "
            "container's seccomp profile forbids them"
        )
    return None


def isolated(relays: Sequence[tuple[str, int]], argv: Sequence[str]) -> list[str]:
    """The command line that runs ``argv`` in a new user and network namespace, each loopback
    port of ``relays`` reached through its Unix socket."""
    pairs = [part for path, port in relays for part in (path, str(port))]
    relay = [sys.executable, "-m", "unsolvable.adapters._netns", *pairs]
    return ["unshare", "--map-root-user", "--net", *relay, "--", *argv]


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copies one direction of a connection until it ends, then ends it on the other side."""
    with source, contextlib.suppress(OSError):  # either side may go away at any moment
        try:
            for chunk in iter(lambda: source.recv(CHUNK), b""):
                sink.sendall(chunk)
        finally:
            sink.shutdown(socket.SHUT_WR)


def _relay(listener: socket.socket, connect: Callable[[], socket.socket]) -> None:
    """Accepts connections until the listener closes, each piped to a fresh ``connect()``."""
    with listener:
        while True:
            try:
                inbound, _ = listener.accept()
            except OSError:  # closed: the run is over
                return
            try:
                outbound = connect()
            except OSError:  # the harness stopped serving: this connection is refused
                inbound.close()
                continue
            for ends in ((inbound, outbound), (outbound, inbound)):
                threading.Thread(target=_pump, args=ends, daemon=True).start()


def serve_unix(socket_path: str, port: int) -> socket.socket:
    """Listens on ``socket_path`` and relays each connection to the harness's loopback server;
    close the returned listener to stop."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(socket_path)
    listener.listen()

    def connect() -> socket.socket:
        return socket.create_connection((LOOPBACK, port))

    threading.Thread(target=_relay, args=(listener, connect), daemon=True).start()
    return listener


def close_relay(listener: socket.socket) -> None:
    """Closes a relay's listener (`serve_unix`); shutting it down first is what wakes its
    ``accept()``."""
    with contextlib.suppress(OSError):
        listener.shutdown(socket.SHUT_RDWR)
    listener.close()


def _loopback_up() -> None:
    """A new network namespace has a loopback interface, but down."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        asked = fcntl.ioctl(probe, SIOCGIFFLAGS, struct.pack(IFREQ, b"lo", 0))
        flags = struct.unpack(IFREQ, asked)[1]
        fcntl.ioctl(probe, SIOCSIFFLAGS, struct.pack(IFREQ, b"lo", flags | IFF_UP))


def _relay_in(socket_path: str, port: int) -> None:
    """Inside the namespace: listens on ``port`` and relays each connection to ``socket_path``."""
    listener = socket.create_server((LOOPBACK, port))

    def connect() -> socket.socket:
        outbound = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        outbound.connect(socket_path)
        return outbound

    threading.Thread(target=_relay, args=(listener, connect), daemon=True).start()


def main(argv: Sequence[str]) -> int:
    """Inside the namespace: loopback up, the harness's ports relayed, the agent run; its status.
    ``argv`` is ``PATH PORT [PATH PORT …] -- COMMAND…``."""
    split = list(argv).index("--")
    pairs, command = argv[:split], argv[split + 1 :]
    _loopback_up()
    for path, port in zip(pairs[::2], pairs[1::2], strict=True):
        _relay_in(path, int(port))
    status = subprocess.call(command)
    if status < 0:  # ended by a signal: end the same way, so that the harness names it
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
