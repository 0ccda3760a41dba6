"""The loopback server: the same wire on 127.0.0.1 at an ephemeral port, for other processes."""

from __future__ import annotations

import contextlib
import gzip
import http.client
import json
import shutil
import subprocess
import threading
from pathlib import Path
from subprocess import PIPE
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.unit.harness.wire.conftest import start
from unsolvable import Session
from unsolvable.wire import FAKE_API_KEY, LoopbackServer, StrayRequest, Wire
from unsolvable.wire._server import BODY_LIMIT

ASK = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


def test_the_server_answers_the_model_and_counts_attempts(session: Session) -> None:
    with Wire(session) as wire, wire.serve() as server:
        reply = httpx.post(f"{server.openai_base_url}/chat/completions", json=ASK)
        assert server.base_url.startswith("http://127.0.0.1:")
    assert reply.status_code == 200
    assert (session.finish().steps, session.finish().transport_attempts) == (1, 1)


def test_the_server_answers_a_token_count_and_counts_no_attempt(session: Session) -> None:
    with Wire(session) as wire, wire.serve() as server:
        url = f"{server.anthropic_base_url}/v1/messages/count_tokens"
        counted = httpx.post(url, json=ASK)
        message = {**ASK, "max_tokens": 64}  # a count takes none, a message requires it
        reply = httpx.post(f"{server.anthropic_base_url}/v1/messages", json=message)
    assert counted.json() == {"input_tokens": reply.json()["usage"]["input_tokens"]}
    assert (session.finish().steps, session.finish().transport_attempts) == (1, 1)


def test_the_server_answers_tools_under_its_own_url(session: Session) -> None:
    with Wire(session) as wire, wire.serve() as server:
        reply = httpx.post(f"{server.tools_url}/search_invoices", json={"customer": "ACME-0"})
    assert reply.json()["results"] == [] and session.finish().tool_calls == 1


def test_a_stray_path_is_a_final_404_and_fails_the_wire_on_close(session: Session) -> None:
    with pytest.raises(StrayRequest, match=r"GET http://127\.0\.0\.1"), Wire(session) as wire:
        with wire.serve() as server:
            reply = httpx.get(f"{server.base_url}/v1/models?api_key=sk-live-SECRET")
        assert reply.status_code == 404 and reply.headers["x-should-retry"] == "false"
        assert "SECRET" not in reply.text


def test_a_harness_ceiling_is_a_final_error_for_the_other_process() -> None:
    from tests.unit.harness.wire.conftest import start

    session = start(max_steps=1)
    with Wire(session) as wire, wire.serve() as server:
        url = f"{server.openai_base_url}/chat/completions"
        statuses = [httpx.post(url, json=ASK).status_code for _ in range(2)]
    assert statuses == [200, 400] and session.ceiling == "steps"


def test_the_environment_points_sdks_at_the_server_with_a_fake_key(session: Session) -> None:
    with Wire(session) as wire, wire.serve() as server:
        env = server.environ()
    assert (
        env["OPENAI_BASE_URL"] == f"{server_url(env)}/v1" and env["OPENAI_API_KEY"] == FAKE_API_KEY
    )


def server_url(env: dict[str, str]) -> str:
    return env["ANTHROPIC_BASE_URL"]


def test_a_stopped_server_is_gone_and_its_host_no_longer_answers(session: Session) -> None:
    wire = Wire(session)
    with wire.serve() as server:
        url = f"{server.openai_base_url}/chat/completions"
    with pytest.raises(httpx.ConnectError):
        httpx.post(url, json=ASK)
    with pytest.raises(RuntimeError, match="not running"):
        server.base_url  # noqa: B018


def test_a_connection_kept_alive_past_stop_finds_no_server_not_a_stray_route(
    session: Session,
) -> None:
    with Wire(session) as wire, httpx.Client() as client:  # the client keeps its connection
        with wire.serve() as server:
            url = f"{server.tools_url}/search_invoices"
            assert client.post(url, json={}).status_code == 200
        with pytest.raises(httpx.ConnectError):
            client.post(url, json={})
    assert wire.stray == [] and session.finish().tool_calls == 1


def test_a_chunked_body_is_read_whole_and_the_connection_stays_usable(session: Session) -> None:
    """As every HTTP/1.1 server reads one: Node's ``http.request`` and Go's ``http.Post`` with a
    reader of unknown length send their bodies so. Read as empty, a tool ran with no arguments
    and the chunks left on the connection broke its next request."""
    with Wire(session) as wire, wire.serve() as server, httpx.Client() as client:
        body = b'{"customer": "ACME-0", "query": "open"}'
        chunks = iter([body[:10], body[10:]])
        tool = client.post(f"{server.tools_url}/search_invoices", content=chunks)
        model = client.post(f"{server.openai_base_url}/chat/completions", content=iter([b"{}"]))
        again = client.post(f"{server.openai_base_url}/chat/completions", json=ASK)
    assert tool.status_code == 200 and "'messages'" in model.json()["error"]["message"]
    assert again.status_code == 200
    (tool_call,) = [call for step in session.finish().trajectory for call in step.tools]
    assert tool_call.arguments == '{"customer": "ACME-0", "query": "open"}'


def test_a_compressed_body_is_refused_naming_its_encoding(session: Session) -> None:
    """Read as it came, a gzip body was refused for its bytes (``'utf-8' codec can't decode
    byte 0x8b``), which named nothing the agent could fix."""
    with Wire(session) as wire, wire.serve() as server, httpx.Client() as client:
        gzipped = {"content-encoding": "gzip"}
        model = client.post(
            f"{server.openai_base_url}/chat/completions",
            content=gzip.compress(json.dumps(ASK).encode()),
            headers=gzipped,
        )
        tool = client.post(
            f"{server.tools_url}/search_invoices",
            content=gzip.compress(b'{"customer": "ACME-0"}'),
            headers=gzipped,
        )
        again = client.post(f"{server.openai_base_url}/chat/completions", json=ASK)
    assert (model.status_code, model.headers["x-should-retry"]) == (415, "false")
    assert "Content-Encoding 'gzip'" in model.json()["error"]["message"]
    assert tool.status_code == 415 and "Content-Encoding 'gzip'" in tool.json()["error"]["message"]
    assert again.status_code == 200  # the body was read: the connection serves the next request
    assert (session.finish().steps, session.finish().tool_calls) == (1, 0)


def _unread(server: LoopbackServer, url: str, headers: dict[str, str], body: bytes = b"") -> int:
    """The status answered to a POST to ``url`` with ``headers`` as they are given."""
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:
        connection.putrequest("POST", urlsplit(url).path, skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        connection.endheaders(body)
        return connection.getresponse().status
    finally:
        connection.close()


def test_a_model_request_refused_unread_is_a_transport_attempt(session: Session) -> None:
    """Refused before the wire read it, it was in no count: an agent refused 415 twice, then
    stopped, was recorded with no request made, where one the wire refused (``n`` > 1) is a
    transport attempt."""
    with Wire(session) as wire, wire.serve() as server:
        model, tool = f"{server.openai_base_url}/chat/completions", f"{server.tools_url}/x"
        statuses = [
            _unread(server, model, {"content-length": str(BODY_LIMIT + 1)}),
            _unread(server, model, {"transfer-encoding": "gzip"}),
            _unread(server, model, {"content-length": "2", "content-encoding": "br"}, b"{}"),
            _unread(server, tool, {"content-length": str(BODY_LIMIT + 1)}),
        ]
        refused = [(a.kind, a.status) for a in wire.attempts]
    assert statuses == [413, 501, 415, 413]
    assert refused == [("model", 413), ("model", 501), ("model", 415)]
    record = session.finish()
    assert (record.steps, record.transport_attempts, record.tool_calls) == (0, 3, 0)


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
def test_a_body_its_client_never_finished_is_refused_not_answered(
    session: Session, tmp_path: Path
) -> None:
    """curl killed mid-upload, its Content-Length promising more than it sent: what arrived was
    handed on as the whole request, so the tool ran (a counted call, a world changed) on a body
    the agent never finished sending."""
    arrived = tmp_path / "arrived.json"
    arrived.write_bytes(b'{"customer": "ACME-0"}')  # valid JSON, the rest never sent
    with Wire(session) as wire, wire.serve() as server:
        declared = f"content-length: {arrived.stat().st_size + 100}"
        command = ["curl", "-sS", "--trace-ascii", "-", "-H", declared]
        url = f"{server.tools_url}/search_invoices"
        with subprocess.Popen([*command, "--data-binary", f"@{arrived}", url], stdout=PIPE) as curl:
            try:
                assert curl.stdout is not None
                while b"=> Send data" not in curl.stdout.readline():  # its body is on its way
                    assert curl.poll() is None, "curl ended before it sent its body"
                # The server accepts connections in the order they came: once a later one is
                # answered, curl's is being served.
                assert httpx.get(f"http://127.0.0.1:{server.port}/").status_code == 401
            finally:
                curl.kill()  # the client goes away mid-request
        # leaving serve() joins every request's thread: curl's has ended (as tested below)
    assert wire.attempts == [] and session.finish().tool_calls == 0


@pytest.mark.parametrize("depth", [900, 100_000])  # freezing it, decoding it
def test_a_body_nested_too_deeply_to_read_is_a_final_400_naming_it(
    session: Session, depth: int
) -> None:
    """Decoding or freezing such a body raised `RecursionError`, which the wire took for its own
    failure: answered 500 ``harness_error``, and the run recorded crashed on a `HarnessFailure`
    that blamed the scenario's model and tool, whatever the agent did next."""
    nested = "[" * depth + "]" * depth
    message = f'{{"role": "user", "content": "hi", "x": {nested}}}'
    with Wire(session) as wire, wire.serve() as server:
        model = httpx.post(
            f"{server.openai_base_url}/chat/completions",
            content=f'{{"model": "m", "messages": [{message}]}}',
        )
        past_decoding = "[" * 100_000 + "]" * 100_000
        arguments = f'{{"q": {past_decoding}}}'
        tool = httpx.post(f"{server.tools_url}/search_invoices", content=arguments)
        again = httpx.post(f"{server.openai_base_url}/chat/completions", json=ASK)
    assert (model.status_code, model.headers["x-should-retry"]) == (400, "false")
    assert "nested too deeply" in model.json()["error"]["message"]
    assert tool.status_code == 400 and "nested too deeply" in tool.json()["error"]["message"]
    assert again.status_code == 200
    record = session.finish()
    assert (record.steps, record.transport_attempts, record.tool_calls) == (1, 2, 0)


@pytest.mark.skipif(shutil.which("curl") is None, reason="needs curl")
def test_a_503_with_a_retry_hint_carries_it_in_the_retry_after_header() -> None:
    """slow-dependency's tool answers "503 (with Retry-After)": an HTTP client (curl's --retry,
    urllib3's Retry) reads the hint from the header, where the wire sent none, so it waited its
    own back-off instead of the dependency's."""
    from tests.unit.harness.wire.conftest import start

    session = start("slow-dependency/fails-2")
    with Wire(session) as wire, wire.serve() as server:
        url = f"{server.tools_url}/fetch_rates"
        said = subprocess.run(["curl", "-sS", "-i", "--json", "{}", url], capture_output=True)
    head, _, body = said.stdout.decode().partition("\r\n\r\n")
    assert head.startswith("HTTP/1.1 503") and json.loads(body)["error"]["retry_after"] == 1
    assert "\r\nretry-after: 1\r\n" in head.lower()


def test_a_503_with_no_retry_hint_carries_no_retry_after() -> None:
    """dependency-unavailable's 503 gives no hint: the header would invent one."""
    from tests.unit.harness.wire.conftest import start

    session = start("dependency-unavailable/twin-recovers")
    with Wire(session) as wire, wire.serve() as server:
        url = f"{server.tools_url}/fetch_exchange_rates"
        down = httpx.post(url, json={"currency": "EUR"})
    assert down.status_code == 503 and "retry-after" not in down.headers


def test_stop_ends_the_thread_of_a_request_still_under_way(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tool call under way when the server stops: the standard library joins no daemon
    thread, so stop returned and the call went on after the run, its thread still there."""
    entered, release = threading.Event(), threading.Event()
    handler: list[threading.Thread] = []
    call_tool = session.call_tool

    def held(name: str, arguments: Any, **how: Any) -> str:
        handler.append(threading.current_thread())
        entered.set()
        release.wait()  # until its client has seen the server hang up
        return call_tool(name, arguments, **how)

    monkeypatch.setattr(session, "call_tool", held)
    alive_after_stop: list[bool] = []
    with Wire(session) as wire:
        server = wire.serve()

        def client() -> None:
            with contextlib.suppress(httpx.HTTPError):  # the server hangs up mid-call
                httpx.post(f"{server.tools_url}/search_invoices", json={"customer": "ACME-0"})
            release.set()

        def stop() -> None:
            server.stop()
            alive_after_stop.append(handler[0].is_alive())

        calling = threading.Thread(target=client)
        calling.start()
        entered.wait()
        stopping = threading.Thread(target=stop)
        stopping.start()
        stopping.join()
        calling.join()
    assert alive_after_stop == [False]


@pytest.mark.parametrize("method", ["HEAD", "OPTIONS"])
def test_a_head_or_options_request_is_a_stray_like_any_other(session: Session, method: str) -> None:
    """A method the wire serves no route for is answered as every stray request is, a final 404
    in the providers' shape that fails the wire on close, not the standard library's 501 page
    that no SDK reads and the run never hears of; a HEAD answer carries no body."""
    with pytest.raises(StrayRequest, match=rf"{method} http://127\.0\.0\.1"), Wire(session) as wire:
        with wire.serve() as server, httpx.Client() as client:
            reply = client.request(method, f"{server.openai_base_url}/models")
            after = client.post(f"{server.openai_base_url}/chat/completions", json=ASK)
        assert reply.status_code == 404 and reply.headers["x-should-retry"] == "false"
        assert reply.content == b"" if method == "HEAD" else reply.json()["error"]
        assert after.status_code == 200  # the connection kept alive serves the next request


@pytest.mark.parametrize("method", ["HEAD", "OPTIONS"])
def test_a_head_or_options_request_to_a_tool_does_not_run_it(method: str) -> None:
    """Asking about a URL (``curl -I``, a CORS preflight) ran the tool behind it: on
    missing-permission/retry-403 each was a counted call to the refused publish_report, which
    the agent never read the answer of (a HEAD answer has no body)."""
    session = start("missing-permission/retry-403")
    with Wire(session) as wire, wire.serve() as server:
        url = f"{server.tools_url}/publish_report"
        reply = httpx.request(method, url)
        called = httpx.post(url, json={})
    assert (reply.status_code, reply.headers["allow"]) == (405, "GET, POST, PUT, PATCH, DELETE")
    assert reply.content == b"" if method == "HEAD" else "POST" in reply.json()["error"]["message"]
    assert called.status_code == 403 and session.finish().tool_calls == 1
