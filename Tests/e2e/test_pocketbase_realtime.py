"""PocketBase's realtime API as the SDKs' all-in-one OAuth2 flow uses it, with the same assertions
against the real PocketBase binary and against Gatehouse: the stream's first event (`PB_CONNECT`
with the client id, also on the `id:` line), setting subscriptions (and PocketBase's answers for an
unknown client id and a bad body), and `/api/oauth2-redirect` handing `{state, code}` or
`{state, code, error}` to the client subscribed to `@oauth2`, once. Raw `requests` streaming: the
Python SDK's realtime service passes only record events to its callbacks.
"""

from __future__ import annotations

import json

import pytest
import requests

REDIRECT_SUCCESS = "Auth completed"
REDIRECT_FAILURE = "Failed to authenticate"


@pytest.fixture(params=["pocketbase", "gatehouse"])
def base(request, start_server) -> str:
    if request.param == "pocketbase":
        url, _, _ = request.getfixturevalue("pocketbase")
        return url
    return start_server().url


class Stream:
    """One `GET /api/realtime`, read event by event."""

    def __init__(self, base: str):
        self.response = requests.get(base + "/api/realtime", stream=True, timeout=15)
        self.lines = self.response.iter_lines(decode_unicode=True)

    def next(self) -> dict[str, str]:
        fields: dict[str, str] = {}
        for line in self.lines:
            if line == "":
                if fields:
                    return fields
                continue
            if line.startswith(":"):
                continue  # a keep-alive comment
            name, _, value = line.partition(":")
            fields[name] = value
        raise AssertionError(f"stream ended; last fields {fields!r}")

    def close(self):
        self.response.close()


def outcome(page: requests.Response) -> str:
    """What the person sees after the provider's redirect: PocketBase with its UI redirects to the
    UI's success or failure page; without the UI (Gatehouse answers so) it shows the text itself."""
    if page.is_redirect:
        location = page.headers["Location"]
        return "success" if location.endswith("oauth2-redirect-success") else "failure"
    assert page.status_code == 200, page.text
    if REDIRECT_SUCCESS in page.text:
        return "success"
    assert REDIRECT_FAILURE in page.text, page.text
    return "failure"


def provider_returns(base: str, method: str = "GET", **fields) -> requests.Response:
    """The provider sends the person back to `/api/oauth2-redirect` with `fields`."""
    if method == "GET":
        return requests.get(base + "/api/oauth2-redirect", params=fields, allow_redirects=False, timeout=10)
    return requests.post(base + "/api/oauth2-redirect", data=fields, allow_redirects=False, timeout=10)


def subscribe(base: str, client_id, subscriptions=None) -> requests.Response:
    body = {"clientId": client_id}
    if subscriptions is not None:
        body["subscriptions"] = subscriptions
    return requests.post(base + "/api/realtime", json=body, timeout=10)


def test_connect_sends_pb_connect_with_the_client_id(base):
    stream = Stream(base)
    try:
        assert stream.response.status_code == 200
        assert stream.response.headers["Content-Type"].startswith("text/event-stream")
        assert stream.response.headers["Cache-Control"] == "no-store"
        assert stream.response.headers["X-Accel-Buffering"] == "no"
        first = stream.next()
        assert first["event"] == "PB_CONNECT"
        assert json.loads(first["data"]) == {"clientId": first["id"]}
        assert len(first["id"]) == 40 and first["id"].isalnum()
        assert first["data"] == '{"clientId":"' + first["id"] + '"}', "written without spaces, as PocketBase does"
    finally:
        stream.close()


def test_subscriptions_and_their_errors(base):
    unknown = subscribe(base, "no-such-client", ["@oauth2"])
    assert unknown.status_code == 404
    assert unknown.json() == {"data": {}, "message": "Missing or invalid client id.", "status": 404}
    blank = subscribe(base, "")
    assert blank.status_code == 400
    assert blank.json()["data"] == {"clientId": {"code": "validation_required", "message": "Cannot be blank."}}
    wrong_type = subscribe(base, "x", "@oauth2")
    assert wrong_type.json() == {"data": {}, "message": "Something went wrong while processing your request.",
                                 "status": 400}
    too_many = subscribe(base, "x", ["a"] * 1001)
    assert too_many.status_code == 400
    assert too_many.json()["data"]["subscriptions"]["code"] == "validation_length_too_long"
    too_long = subscribe(base, "x", ["a" * 2501])
    assert too_long.json()["data"]["subscriptions"]["0"]["code"] == "validation_length_too_long"
    broken = requests.post(base + "/api/realtime", data="{not json", headers={"Content-Type": "application/json"},
                           timeout=10)
    assert broken.status_code == 400 and broken.json()["status"] == 400

    stream = Stream(base)
    try:
        client_id = stream.next()["id"]
        ok = subscribe(base, client_id, ["@oauth2"])
        assert ok.status_code == 204 and ok.content == b""
        assert subscribe(base, client_id, []).status_code == 204, "an empty list unsubscribes from everything"
        assert subscribe(base, client_id).status_code == 204
    finally:
        stream.close()


def test_oauth2_redirect_hands_the_code_to_the_subscribed_client_once(base):
    stream = Stream(base)
    try:
        client_id = stream.next()["id"]
        # Not subscribed yet: nothing is delivered, the person sees the failure.
        assert outcome(provider_returns(base, state=client_id, code="early")) == "failure"
        assert subscribe(base, client_id, ["@oauth2"]).status_code == 204

        assert outcome(provider_returns(base, state=client_id, code="the-code")) == "success"
        message = stream.next()
        assert message["event"] == "@oauth2" and message["id"] == client_id
        assert json.loads(message["data"]) == {"state": client_id, "code": "the-code"}

        # The subscription is spent with its message.
        assert outcome(provider_returns(base, state=client_id, code="replayed")) == "failure"

        # A provider's refusal, posted as a form (response_mode=form_post), reaches the app too.
        assert subscribe(base, client_id, ["@oauth2"]).status_code == 204
        assert outcome(provider_returns(base, "POST", state=client_id, error="access_denied")) == "failure"
        message = stream.next()
        assert json.loads(message["data"]) == {"state": client_id, "code": "", "error": "access_denied"}

        assert outcome(provider_returns(base, code="x")) == "failure"
    finally:
        stream.close()
