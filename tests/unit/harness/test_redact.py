"""Secrets, memory addresses, LangGraph's task ids, the loopback URLs' ports and keys, the
harness's temporary folders and the working directory are cleaned from what agents put into
records."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import socket
import tempfile
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import pytest

import unsolvable
from unsolvable import scenarios
from unsolvable._redact import Redactor


def test_secret_environment_values_and_credential_shapes_are_redacted() -> None:
    redactor = Redactor({"Service_Token": "tok-1234567890", "HOME": "/home/someone-long"})
    text = "tok-1234567890 sk-ant-api03-xyz12345 bearer abc.def https://u:p@h/x /home/someone-long"
    assert redactor.text(text) == (
        "[redacted] [redacted] bearer [redacted] https://[redacted]@h/x /home/someone-long"
    )


@pytest.mark.parametrize(
    ("url", "redacted"),
    [
        ("postgres://admin:p@ss@db:5432/app", "postgres://[redacted]@db:5432/app"),
        ("redis://:hunter2@cache:6379", "redis://[redacted]@cache:6379"),
        ("https://u:pw@h/x?to=a@b.c and x@y.z", "https://[redacted]@h/x?to=a@b.c and x@y.z"),
        ("https://h/x?to=a@b.c", "https://h/x?to=a@b.c"),
    ],
)
def test_the_password_of_a_url_is_redacted_whatever_it_holds(url: str, redacted: str) -> None:
    assert Redactor({}).text(url) == redacted


def test_the_piece_of_a_secret_a_cut_left_beside_its_ellipsis_is_redacted() -> None:
    """A cut keeps a text's start (`cut`) or its end: either may split a secret; a piece of less
    than half of it, or away from an ellipsis, stays."""
    redactor = Redactor({"MY_API_KEY": "key-1234567890", "HOOK_WEBHOOK": "https://hooks/T0-B0"})
    assert redactor.text("sent key-1234567…") == "sent [redacted]…"
    assert redactor.text("…4567890 printed") == "…[redacted] printed"
    assert redactor.text("('x key-12345…); expected X") == "('x [redacted]…); expected X"
    assert redactor.text("key-12…890 key-1234 then…") == "key-12…890 key-1234 then…"
    assert redactor.text("see https://…") == "see https://…"


def test_cleaning_is_idempotent_and_keeps_short_values_and_shapes() -> None:
    redactor = Redactor({"X_PASSWORD": "1"})
    once = redactor.data({"at": ["<A object at 0x7f00deadbeef>", 1], "n": ("1",)})
    assert once == {"at": ["<A object at 0x…>", 1], "n": ("1",)}
    assert redactor.data(once) == once


TASK = "081f8b88-9442-efab-7680-393ac0dd72a1"
TEAM = "371a46a8-2956-4bc0-9555-91440f568ee9"


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        pytest.param(
            f"PermissionDenied: 403 Forbidden\nDuring task with name 'tools' and id '{TASK}'\n"
            f"order {TASK} and id '{TASK}'",
            "PermissionDenied: 403 Forbidden\nDuring task with name 'tools' and id '…'\n"
            f"order {TASK} and id '{TASK}'",
            id="langgraph-task",
        ),
        pytest.param(
            f"Error processing publish message for assistant_{TEAM}/{TEAM}\n"
            f"Traceback (most recent call last):\nassistant_{TEAM}/{TEAM}",
            "Error processing publish message for assistant_…/…\n"
            f"Traceback (most recent call last):\nassistant_{TEAM}/{TEAM}",
            id="autogen-team",
        ),
    ],
)
def test_a_framework_s_run_id_is_masked_in_its_own_line_alone(text: str, masked: str) -> None:
    """The id LangGraph's note gives a task, and the team's id in the name AutoGen's runtime
    logs a failing agent by, are new on every run; a uuid the agent wrote, or the same id
    anywhere else, may be what its author needs, and stays."""
    assert Redactor({}).text(text) == masked


def test_a_loopback_urls_port_and_run_key_are_masked_and_nothing_else() -> None:
    """The wire's and the MCP server's URLs change every run; another host's port, a path
    after the key, and a hash that is no URL's first segment stay."""
    key = "3c4d7e281d15818f527d83b41b4c9117"
    text = (
        f"POST http://127.0.0.1:33569/{key}/v1/chat http://localhost:8080/a "
        f"http://[::1]:9/{key}0 https://example.com:8443/{key} {key}"
    )
    assert Redactor({}).text(text) == (
        f"POST http://127.0.0.1:…/…/v1/chat http://localhost:…/a "
        f"http://[::1]:…/{key}0 https://example.com:8443/{key} {key}"
    )


def _refused(host: str) -> tuple[int, list[str]]:
    """A loopback port nothing listens on, and what Python's HTTP clients raise for it, as an
    agent's error or output holds it after the harness's server has gone."""
    import aiohttp
    import requests

    with socket.socket() as probe:
        probe.bind((host, 0))
        port = probe.getsockname()[1]
    key = "3c4d7e281d15818f527d83b41b4c9117"
    found = []
    try:
        requests.get(f"http://{host}:{port}/{key}/v1/chat/completions", timeout=10)
    except requests.ConnectionError as error:
        found.append(str(error))

    async def connect() -> None:
        async with aiohttp.ClientSession() as session:
            try:
                await session.get(f"http://{host}:{port}/{key}/v1/messages")
            except aiohttp.ClientConnectorError as error:
                found.append(str(error))
        try:
            await asyncio.open_connection(host, port)
        except ConnectionRefusedError as error:
            found.append(str(error))

    asyncio.run(connect())
    return port, found


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_a_loopback_port_a_client_names_without_a_scheme_is_masked(host: str) -> None:
    """requests, aiohttp and asyncio name the address of a refused connection without a URL's
    scheme (``host='127.0.0.1', port=…``, ``127.0.0.1:…``, ``('127.0.0.1', …)``), and requests
    the run's key in the path it asked for: each differs on every run."""
    port, messages = _refused(host)
    assert len(messages) == 3, messages
    for message in messages:
        assert str(port) in message
        cleaned = Redactor({}).text(message)
        assert str(port) not in cleaned and "3c4d7e28" not in cleaned, cleaned
        assert "…" in cleaned


def test_a_port_of_another_host_or_a_number_beside_a_loopback_name_stays() -> None:
    text = "db.internal:5432 ('10.0.0.2', 8080) host='example.com', port=443 127.0.0.10:80"
    assert Redactor({}).text(text) == text


def test_the_harness_s_temporary_folders_are_masked_wherever_tmpdir_is() -> None:
    """A folder the harness made for a run is named at random, under a TMPDIR that differs by
    machine; a folder of that name elsewhere, or one not of ours, stays."""
    tmp = tempfile.gettempdir()
    text = (
        f"{tmp}/unsolvable-qfudo85l/mcp.json {tmp}/unsolvable-claude-ab_12cd3/work "
        f"/srv/unsolvable-qfudo85l {tmp}/pytest-qfudo85l"
    )
    assert Redactor({}).text(text) == (
        "$TMPDIR/unsolvable-…/mcp.json $TMPDIR/unsolvable-claude-…/work "
        f"/srv/unsolvable-qfudo85l {tmp}/pytest-qfudo85l"
    )


def test_a_tracebacks_files_under_the_working_directory_are_named_relative_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where a project is checked out differs by machine; a path beside it, one that only starts
    with the same letters, or one under it that is not a traceback's file, stays."""
    monkeypatch.chdir(tmp_path)
    text = (
        f'File "{tmp_path}/agent.py", line 2 {tmp_path}-old/agent.py {tmp_path.parent}/x '
        f'File "{tmp_path}-old/agent.py" {tmp_path}/q3.md'
    )
    assert Redactor({}).text(text) == (
        f'File "agent.py", line 2 {tmp_path}-old/agent.py {tmp_path.parent}/x '
        f'File "{tmp_path}-old/agent.py" {tmp_path}/q3.md'
    )
    monkeypatch.chdir("/")
    assert Redactor({}).text('File "/etc/agent.py"') == 'File "/etc/agent.py"'


def test_a_scenarios_paths_read_the_same_from_any_working_directory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """denial-sprawl's file lives in ``/tmp``: run from there, its path once lost its folder in
    every record, which then differed by where the command ran."""
    monkeypatch.chdir("/tmp")
    text = '{"source": "/tmp/q3.md", "target": "/srv/reports/q3.md"}'
    assert Redactor({}).text(text) == text


def test_secret_names_cover_the_cloud_providers_and_ci_credentials() -> None:
    names = [
        "OPENAI_API_KEY", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AZURE_OPENAI_KEY",
        "AZURE_CLIENT_SECRET", "GOOGLE_APPLICATION_CREDENTIALS", "PGPASSWORD", "MYSQL_PWD",
        "GITHUB_TOKEN", "GITHUB_PAT", "NPM_CONFIG__AUTH", "SENTRY_DSN", "db_password_file",
    ]  # fmt: skip
    redactor = Redactor({name: f"value-of-{name}" for name in [*names, "HOME", "PATH"]})
    text = " ".join(f"value-of-{name}" for name in [*names, "HOME", "PATH"])
    assert redactor.text(text) == " ".join(
        ["[redacted]"] * len(names) + ["value-of-HOME", "value-of-PATH"]
    )


def test_a_secret_is_found_as_json_writes_it_once_or_twice() -> None:
    secret = 'pa"ss\\wörd-1234'
    redactor = Redactor({"PGPASSWORD": secret})
    once = json.dumps({"password": secret})
    twice = json.dumps({"body": once})
    assert redactor.text(once) == '{"password": "[redacted]"}'
    assert redactor.text(twice) == '{"body": "{\\"password\\": \\"[redacted]\\"}"}'
    assert redactor.text(json.dumps(secret, ensure_ascii=False)) == '"[redacted]"'


@pytest.mark.parametrize("before", ["", "u", "us", "user:", "a-longer-user:"])
@pytest.mark.parametrize("encode", [base64.b64encode, base64.urlsafe_b64encode])
def test_a_secret_base64_encoded_inside_a_longer_text_is_redacted(
    before: str, encode: Callable[[bytes], bytes]
) -> None:
    """As an ``Authorization: Basic`` header writes a password after its user, wherever it falls
    in base64's groups of three bytes; what the bytes around it make is kept."""
    secret = "hunter2/secret?pass>"
    header = encode(f"{before}{secret}!".encode()).decode()
    redacted = Redactor({"DB_PASSWORD": secret}).text(f"Authorization: Basic {header}")
    assert "[redacted]" in redacted
    kept = redacted.removeprefix("Authorization: Basic ").split("[redacted]")
    # before it, what the user's bytes make; after it, a character or two the "!" shares
    assert kept[0] == header[: (4 * len(before) + 2) // 3] and len(kept[1]) <= 4, redacted


def test_a_secret_percent_encoded_in_a_url_or_a_form_is_redacted() -> None:
    secret = "p@ss w/rd+9999"
    redactor = Redactor({"SERVICE_TOKEN": secret})
    query = f"https://h/x?token={urllib.parse.quote(secret, safe='')}&q=1"
    form = f"token={urllib.parse.quote_plus(secret)}&q=1"
    assert redactor.text(query) == "https://h/x?token=[redacted]&q=1"
    assert redactor.text(form) == "token=[redacted]&q=1"


def test_a_short_secret_is_not_looked_for_encoded_either() -> None:
    """Its encodings are as short as it is, and would redact ordinary text."""
    assert Redactor({"X_PASSWORD": "pw"}).text("cHc= and pw") == "cHc= and pw"


def test_a_key_removed_from_the_environment_before_it_is_named_is_still_redacted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "tok-removed-1234567890")

    def agent(session: unsolvable.Session) -> unsolvable.Stop:
        token = os.environ.pop("MY_SERVICE_TOKEN")
        return unsolvable.Stop(code=unsolvable.Code.NO_PROGRESS, reason=f"used {token}")

    record = unsolvable.run(agent, scenarios.get("constant-return/repeat"))
    assert record.reported is not None and record.reported.reason == "used [redacted]"
