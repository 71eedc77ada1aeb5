"""Webhooks end to end: the real binary delivers each act's event to a receiver on a loopback
port, which checks every request with the PyPI `standardwebhooks` library (and one endpoint with
`svix`'s `Webhook.verify` over the `svix-*` aliases). Every way in — the pages, the console, the
admin API, InsForge's, PocketBase's and Descope's SDKs' calls and the SuperTokens core's — gives
each account exactly its sequence of events. Faults: a receiver that is down gets the
event once it is back; `kill -9` after a sign-up commits and before its delivery delivers it after
the restart, once per `webhook-id`; a receiver that takes 10 s does not slow sign-ins. The retry
schedule is shortened with `--webhook-retry-delays` so the whole file stays within seconds.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections import Counter
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from descope import AuthException, DescopeClient
from standardwebhooks.webhooks import Webhook as StandardWebhook
from svix.webhooks import Webhook as SvixWebhook

from conftest import PASSWORD, Browserless, GatehouseServer, free_port, pocketbase_client, unique_email

FAST = ["--webhook-retry-delays", "0.2,0.4,0.8,1.6"]
DESCOPE_PROJECT = "P2webhooksGatehouseTest00001"


class Receiver:
    """A webhook receiver: verifies each request with the endpoint's secret (standardwebhooks, or
    svix for the paths registered as such) and keeps the verified events; `status` is what it
    answers (503 while "down"), `delay` how long it takes."""

    def __init__(self):
        self.secrets: dict[str, tuple[str, str]] = {}  # path -> (secret, "standard" | "svix")
        self.events: list[tuple[str, str, dict]] = []  # (path, webhook-id, payload) for each 2xx answer
        self.refused: list[str] = []
        self.arrived: Counter[str] = Counter()
        self.status = 200
        self.delay = 0.0
        self.lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server API
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with receiver.lock:
                    receiver.arrived[self.path] += 1
                time.sleep(receiver.delay)
                secret, library = receiver.secrets.get(self.path, ("", "standard"))
                headers = {name.lower(): value for name, value in self.headers.items()}
                try:
                    if library == "svix":
                        only_svix = {k: v for k, v in headers.items() if k.startswith("svix-")}
                        SvixWebhook(secret).verify(body, only_svix)  # answers nothing; raises when forged
                        payload = json.loads(body)
                    else:
                        payload = StandardWebhook(secret).verify(body, headers)
                except Exception as error:  # noqa: BLE001 - any refusal is a failed verification
                    with receiver.lock:
                        receiver.refused.append(f"{self.path}: {error}")
                    self.send_response(400)
                    self.end_headers()
                    return
                with receiver.lock:
                    status = receiver.status
                    if 200 <= status < 300:
                        receiver.events.append((self.path, headers["webhook-id"], payload))
                self.send_response(status)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def events_in_flight(self, path: str) -> int:
        """Requests to `path` that arrived and are not answered yet (held by `delay`)."""
        with self.lock:
            return self.arrived[path] - sum(1 for where, _, _ in self.events if where == path)

    def of(self, path: str) -> list[dict]:
        with self.lock:
            return [payload for where, _, payload in self.events if where == path]

    def wait(self, path: str, predicate, timeout: float = 10) -> list[dict]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            events = self.of(path)
            if predicate(events):
                return events
            time.sleep(0.05)
        raise AssertionError(f"{path} got {[e['type'] for e in self.of(path)]}; refused: {self.refused}")

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def api(server: GatehouseServer, token: str, method: str, path: str, body: dict | None = None):
    request = urllib.request.Request(server.url + path, method=method, data=json.dumps(body).encode() if body else None,
                                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        raw = response.read()
        return json.loads(raw) if raw else None


def insforge_post(server: GatehouseServer, path: str, email: str) -> None:
    """An InsForge SDK's call with `{email, password}`: `/api/auth/users` signs up, `/api/auth/sessions` in."""
    urllib.request.urlopen(urllib.request.Request(
        server.url + path, method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"email": email, "password": PASSWORD}).encode()), timeout=30).read()


def add_endpoint(server, token, receiver: Receiver, path: str, library: str = "standard", **extra) -> dict:
    endpoint = api(server, token, "POST", "/_/api/webhooks",
                   {"url": receiver.url(path), "svixHeaders": library == "svix", **extra})
    receiver.secrets[path] = (endpoint["secret"], library)
    return endpoint


def by_user(events: list[dict]) -> dict[str, list[tuple]]:
    """Each account's (type, way in[, reason]) in arrival order."""
    sequences: dict[str, list[tuple]] = {}
    for event in events:
        data = event["data"]
        email = data.get("user", {}).get("email") or data["details"]["email"]
        sequences.setdefault(email, []).append((event["type"], data.get("wayIn"), *filter(None, [data.get("reason")])))
    return sequences


def core_call(server: GatehouseServer, path: str, body: dict) -> dict:
    """A SuperTokens-core API call as supertokens-python's `Querier` makes it (CDI 5.4, the api-key)."""
    request = urllib.request.Request(server.url + path, method="POST", data=json.dumps(body).encode(), headers={
        "Content-Type": "application/json", "cdi-version": "5.4", "api-key": server.supertokens_api_key()})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def receiver():
    receiver = Receiver()
    yield receiver
    receiver.close()


@pytest.fixture(scope="module")
def gatehouse(binary, tmp_path_factory):
    server = GatehouseServer(binary, tmp_path_factory.mktemp("webhooks") / "gatehouse.sqlite", "none",
                             [*FAST, "--descope-project-id", DESCOPE_PROJECT])
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def token(gatehouse):
    return gatehouse.superuser_token()


def test_each_way_in_gives_each_account_its_sequence_verified_by_both_libraries(gatehouse, token, receiver):
    add_endpoint(gatehouse, token, receiver, "/all")
    add_endpoint(gatehouse, token, receiver, "/svix", "svix", events=["user.created", "user.deleted"])
    page, insforge, pocketbase = unique_email("page"), unique_email("insforge"), unique_email("pb")
    descope, supertokens = unique_email("descope"), unique_email("supertokens")

    # The pages: a sign-up that signs in, a profile change, sign-out, a wrong password, a sign-in.
    browser = Browserless(gatehouse.url)
    status, _, _ = browser.form_post("/auth/sign-up", "/auth/sign-up", {"email": page, "password": PASSWORD, "name": "Pat"})
    assert status == 303
    status, _, _ = browser.form_post("/account", "/account", {"name": "Pat Page", "bio": "", "avatar_url": ""})
    assert status == 303
    status, _, _ = browser.form_post("/account", "/auth/sign-out", {})
    assert status == 303
    status, _, _ = browser.form_post("/auth/sign-in", "/auth/sign-in", {"email": page, "password": "not it at all"})
    status, _, _ = browser.form_post("/auth/sign-in", "/auth/sign-in", {"email": page, "password": PASSWORD})
    assert status == 303

    # InsForge's sign-up, which answers with a session; then staff disable and delete it in the console.
    insforge_post(gatehouse, "/api/auth/users", insforge)
    created = api(gatehouse, token, "GET", "/_/api/users?" + urllib.parse.urlencode({"q": insforge}))
    target = next(user for user in created["items"] if user["email"] == insforge)["id"]
    staff = Browserless(gatehouse.url)
    status, _, _ = staff.form_post("/_/", "/_/", {"email": "e2e-admin@example.com", "password": "e2e-admin-password"})
    assert status == 303
    status, _, _ = staff.form_post(f"/_/users/{target}", f"/_/users/{target}/disable", {"disabled": "true"})
    assert status == 303
    status, _, _ = staff.form_post(f"/_/users/{target}", f"/_/users/{target}/delete", {"confirm": insforge})
    assert status == 303

    # PocketBase's SDK: a record (no session kept), a password sign-in; the admin API disables and deletes it.
    client = pocketbase_client(gatehouse.url)
    client.collection("users").create({"email": pocketbase, "password": PASSWORD, "passwordConfirm": PASSWORD})
    client.collection("users").auth_with_password(pocketbase, PASSWORD)
    target = client.auth_store.model.id
    api(gatehouse, token, "PATCH", f"/_/api/users/{target}", {"disabled": True})
    api(gatehouse, token, "DELETE", f"/_/api/users/{target}")

    # Descope's SDK: a sign-up that signs in, a wrong password, sign-out.
    descope_client = DescopeClient(project_id=DESCOPE_PROJECT, base_url=gatehouse.url)
    signed_up = descope_client.password.sign_up(descope, PASSWORD, {"name": "Dee"})
    with pytest.raises(AuthException):
        descope_client.password.sign_in(descope, "not it at all")
    descope_client.logout(signed_up["refreshSessionToken"]["jwt"])

    # The SuperTokens core's calls as supertokens-python makes them: sign-up (no session), a session,
    # a wrong password, the session removed.
    user_id = core_call(gatehouse, "/public/recipe/signup", {"email": supertokens, "password": PASSWORD})["user"]["id"]
    handle = core_call(gatehouse, "/public/recipe/session", {
        "userId": user_id, "userDataInJWT": {}, "userDataInDatabase": {}, "useDynamicSigningKey": True,
        "enableAntiCsrf": False})["session"]["handle"]
    assert core_call(gatehouse, "/public/recipe/signin", {"email": supertokens, "password": "not it at all"})["status"] \
        == "WRONG_CREDENTIALS_ERROR"
    assert core_call(gatehouse, "/public/recipe/session/remove", {"sessionHandles": [handle]})["status"] == "OK"

    expected = {
        page: [("user.created", "pages"), ("session.created", "pages"), ("user.updated", "pages"),
               ("session.ended", "pages", "sign_out"), ("sign_in.failed", "pages"), ("session.created", "pages")],
        insforge: [("user.created", "insforge-api"), ("session.created", "insforge-api"), ("user.updated", "console"),
                   ("user.deleted", "console")],
        pocketbase: [("user.created", "pocketbase-api"), ("session.created", "pocketbase-api"), ("user.updated", "api"),
                     ("user.deleted", "api")],
        descope: [("user.created", "descope-api"), ("session.created", "descope-api"), ("sign_in.failed", "descope-api"),
                  ("session.ended", "descope-api", "sign_out")],
        supertokens: [("user.created", "supertokens-core"), ("session.created", "supertokens-core"),
                      ("sign_in.failed", "supertokens-core"), ("session.ended", "supertokens-core", "sign_out")],
    }
    wanted = sum(len(sequence) for sequence in expected.values())
    events = receiver.wait("/all", lambda got: len([e for e in got if e["data"].get("user", {}).get("email") in expected])
                           >= wanted)
    time.sleep(0.3)  # an event too many would have come by now
    sequences = by_user(receiver.of("/all"))
    assert {email: sequences.get(email) for email in expected} == expected
    deleted = next(e for e in events if e["type"] == "user.deleted" and e["data"]["user"]["email"] == pocketbase)
    assert deleted["data"]["actor"]
    svix = receiver.wait("/svix", lambda got: len(got) >= 7)
    assert sorted(e["type"] for e in svix) == ["user.created"] * 5 + ["user.deleted"] * 2
    assert not receiver.refused


def test_a_receiver_that_is_down_gets_the_event_when_it_is_back(gatehouse, token, receiver):
    endpoint = add_endpoint(gatehouse, token, receiver, "/down", events=["user.created"])
    receiver.status = 503
    email = unique_email("down")
    try:
        insforge_post(gatehouse, "/api/auth/users", email)
        time.sleep(0.8)  # the first try and at least one retry meet a 503
        assert not [e for e in receiver.of("/down") if e["data"]["user"]["email"] == email]
    finally:
        receiver.status = 200
    receiver.wait("/down", lambda got: any(e["data"]["user"]["email"] == email for e in got))
    # Each try waited longer than the one before, as --webhook-retry-delays says (0.2 s, 0.4 s, …).
    delivery = api(gatehouse, token, "GET", f"/_/api/webhooks/{endpoint['id']}/deliveries")["items"][-1]
    tries = api(gatehouse, token, "GET", f"/_/api/webhooks/{endpoint['id']}/deliveries/{delivery['id']}/attempts")["items"]
    assert [t["status"] for t in tries] == [503] * (len(tries) - 1) + [200] and len(tries) >= 3, tries
    starts = [datetime.fromisoformat(t["at"].replace("Z", "+00:00")).timestamp() for t in tries]
    gaps = [later - earlier for earlier, later in zip(starts, starts[1:])]
    assert all(gap >= delay - 0.01 for gap, delay in zip(gaps, [0.2, 0.4, 0.8, 1.6])), gaps


def test_a_slow_receiver_does_not_slow_sign_ins(gatehouse, token, receiver):
    email = unique_email("slow")
    insforge_post(gatehouse, "/api/auth/users", email)

    def sign_in_seconds() -> float:
        started = time.monotonic()
        insforge_post(gatehouse, "/api/auth/sessions", email)
        return time.monotonic() - started

    before = sorted(sign_in_seconds() for _ in range(3))
    slow = add_endpoint(gatehouse, token, receiver, "/slow", events=["session.created"])
    receiver.delay = 10.0
    try:
        during = sorted(sign_in_seconds() for _ in range(3))
    finally:
        receiver.delay = 0.0
    print(f"sign-in seconds without a slow endpoint {before}, with one {during}")
    # Had a sign-in waited for its delivery, each would take the receiver's 10 s.
    assert during[-1] < 5 and during[1] < before[1] + 1, (before, during)
    assert receiver.events_in_flight("/slow") >= 1
    api(gatehouse, token, "DELETE", f"/_/api/webhooks/{slow['id']}")


def test_kill_9_after_a_sign_up_commits_delivers_it_after_the_restart_once(gatehouse, token, receiver):
    add_endpoint(gatehouse, token, receiver, "/killed", events=["user.created"])
    receiver.status = 503
    email = unique_email("killed")
    try:
        insforge_post(gatehouse, "/api/auth/users", email)
        gatehouse.kill()
    finally:
        receiver.status = 200
    assert not receiver.of("/killed")
    gatehouse.start()
    events = receiver.wait("/killed", lambda got: len(got) >= 1)
    time.sleep(0.5)  # a second delivery of the same event would have come by now
    with receiver.lock:
        ids = Counter(webhook_id for path, webhook_id, _ in receiver.events if path == "/killed")
    assert [e["data"]["user"]["email"] for e in events] == [email]
    assert set(ids.values()) == {1}, ids


def test_the_readmes_python_receiver_verifies_and_prints_each_event(gatehouse, token):
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    code = readme.split("A receiver in Python (`pip install standardwebhooks`):\n\n```python\n")[1].split("```")[0]
    assert '"whsec_…"' in code and '("127.0.0.1", 5000)' in code, code
    port = free_port()
    endpoint = api(gatehouse, token, "POST", "/_/api/webhooks",
                   {"url": f"http://127.0.0.1:{port}/webhooks", "events": ["user.created"]})
    code = code.replace('"whsec_…"', repr(endpoint["secret"])).replace('("127.0.0.1", 5000)', f'("127.0.0.1", {port})')
    receiver = subprocess.Popen([sys.executable, "-u", "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
    try:
        email = unique_email("readme")
        insforge_post(gatehouse, "/api/auth/users", email)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            deliveries = api(gatehouse, token, "GET", f"/_/api/webhooks/{endpoint['id']}/deliveries")["items"]
            if deliveries and deliveries[0]["state"] == "delivered":
                break
            time.sleep(0.1)
        assert deliveries and deliveries[0]["state"] == "delivered", deliveries
    finally:
        receiver.terminate()
        out, err = receiver.communicate(timeout=10)
        api(gatehouse, token, "DELETE", f"/_/api/webhooks/{endpoint['id']}")
    assert out.splitlines() == [f"user.created {email}"], (out, err)
