"""Transport-neutral requests and responses: redaction and SSE framing."""

from __future__ import annotations

from unsolvable.wire import WireRequest, WireResponse, redact_url


def test_redacted_urls_keep_no_credentials_or_query_values() -> None:
    url = "https://user:sk-secret@api.example.com:8443/v1/x?key=sk-secret&page=2#frag"
    assert redact_url(url) == "https://api.example.com:8443/v1/x?key=redacted&page=redacted"


def test_headers_never_show_in_a_request_repr() -> None:
    request = WireRequest(method="POST", url="https://a/b", headers={"authorization": "Bearer k"})
    assert "Bearer" not in repr(request) and request.host == "a" and request.path == "/b"


def test_a_request_is_routed_by_its_lower_cased_host_and_a_path_of_at_least_a_slash() -> None:
    request = WireRequest(method="GET", url="https://user:k@API.Example.TEST:8443?page=2")
    assert (request.host, request.path, request.query) == (
        "api.example.test:8443",
        "/",
        {"page": "2"},
    )
    assert request.safe_url == "https://api.example.test:8443?page=redacted"


def test_sse_frames_events_and_the_done_sentinel() -> None:
    response = WireResponse.sse([("message_start", {"a": 1}), (None, "[DONE]")])
    assert response.body == b'event: message_start\ndata: {"a": 1}\n\ndata: [DONE]\n\n'
    assert ("content-type", "text/event-stream") in response.headers
