"""Test controls (README, "Test controls"), on one server for the module:

- Descope's management API for test users, driven by the unchanged PyPI `descope` SDK (2.16.1)'s
  management client with a key made by `gatehouse descope management-key create`: test users are
  made, get codes and links without mail (spent by the SDK's own `otp.verify_code`,
  `magiclink.verify`, `enchantedlink`), are found and deleted — and only they;
- the dev mailbox as Mailpit's API, read by the unchanged PyPI `mailpit-api-client` (1.0.0);
- reserved test addresses (`--test-address-suffix`): code 424242, nothing mailed, loopback only;
- Gatehouse's own controls under `/_/api/test/` with the same key: codes without mail, and faults
  met by the unchanged PyPI `pocketbase` SDK's `auth_refresh` (503 once, then a delay) and by an
  InsForge refresh (401 in InsForge's error shape)."""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from descope import AuthException, DeliveryMethod, DescopeClient
from mailpit.client.api import API
from mailpit.client.models import Messages
from pocketbase import PocketBase
from pocketbase.utils import ClientResponseError

from conftest import GatehouseServer, gatehouse_binary, read_mailbox, unique_email

PROJECT = "P2descopeManagementTest00001"
SUFFIX = "+gatehouse_test@"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    db = tmp_path_factory.mktemp("test-controls") / "gatehouse.sqlite"
    created = subprocess.run(
        [str(gatehouse_binary()), "descope", "management-key", "create", "--name", "CI", "--db", str(db)],
        capture_output=True, text=True, timeout=60)
    assert created.returncode == 0, created.stderr
    started = GatehouseServer(gatehouse_binary(), db, "code",
                              ["--descope-project-id", PROJECT, "--test-address-suffix", SUFFIX])
    started.management_key = created.stdout.strip().splitlines()[-1]
    try:
        yield started.start()
    finally:
        assert started.stop() == 0, started.log_tail()


@pytest.fixture(scope="module")
def management(server) -> DescopeClient:
    return DescopeClient(project_id=PROJECT, base_url=server.url, management_key=server.management_key)


@pytest.fixture(scope="module")
def client(server) -> DescopeClient:
    return DescopeClient(project_id=PROJECT, base_url=server.url)


def test_the_key_is_printed_alone_on_the_last_line_and_a_wrong_key_is_refused(server):
    assert server.management_key.startswith("K") and len(server.management_key) == 44
    wrong = DescopeClient(project_id=PROJECT, base_url=server.url, management_key="K" + "x" * 43)
    with pytest.raises(AuthException) as refused:
        wrong.mgmt.user.search_all_test_users()
    assert refused.value.status_code == 401


def test_a_test_user_signs_in_with_a_generated_code_and_nothing_is_mailed(server, management, client):
    email = unique_email("descope-test")
    created = management.mgmt.user.create_test_user(email, email=email, display_name="Tess Tuser", verified_email=True)
    assert created["user"]["loginIds"] == [email] and created["user"]["name"] == "Tess Tuser"
    assert created["user"]["test"] is True  # Descope marks test users so a suite can tell them apart
    generated = management.mgmt.user.generate_otp_for_test_user(DeliveryMethod.EMAIL, email)
    assert generated["loginId"] == email and len(generated["code"]) == 6
    signed_in = client.otp.verify_code(DeliveryMethod.EMAIL, email, generated["code"])
    assert signed_in["user"]["email"] == email and signed_in["sessionToken"]["jwt"]
    assert read_mailbox(server.url, email) == []


def test_a_generated_magic_link_and_enchanted_link_sign_in(management, client):
    email = unique_email("descope-link")
    management.mgmt.user.create_test_user(email, email=email)
    link = management.mgmt.user.generate_magic_link_for_test_user(DeliveryMethod.EMAIL, email, "")["link"]
    token = urllib.parse.parse_qs(urllib.parse.urlsplit(link).query)["t"][0]
    assert client.magiclink.verify(token)["user"]["email"] == email
    with pytest.raises(AuthException):
        client.magiclink.verify(token)  # single use, as the mailed link
    # A second user: an enchanted link is a sign-in link too, and takes the address's one link a minute.
    email = unique_email("descope-enchanted")
    management.mgmt.user.create_test_user(email, email=email)
    enchanted = management.mgmt.user.generate_enchanted_link_for_test_user(email, "")
    client.enchantedlink.verify(urllib.parse.parse_qs(urllib.parse.urlsplit(enchanted["link"]).query)["t"][0])
    assert client.enchantedlink.get_session(enchanted["pendingRef"])["user"]["email"] == email


def test_codes_are_only_for_test_users_and_embedded_links_for_anyone(management, client):
    email = unique_email("descope-person")
    person = management.mgmt.jwt.sign_up(email)
    assert person["firstSeen"] is True and person["user"]["email"] == email
    with pytest.raises(AuthException) as refused:
        management.mgmt.user.generate_otp_for_test_user(DeliveryMethod.EMAIL, email)
    assert refused.value.status_code == 400
    token = management.mgmt.user.generate_embedded_link(email)
    assert client.magiclink.verify(token)["user"]["email"] == email
    assert management.mgmt.jwt.sign_in(email)["sessionToken"]["jwt"]
    newcomer = unique_email("descope-newcomer")
    token = management.mgmt.user.generate_sign_up_embedded_link(newcomer)
    assert client.magiclink.verify(token)["user"]["email"] == newcomer  # the account is made as it is spent


def test_search_and_delete_all_touch_test_users_only(management):
    tester, person = unique_email("descope-gone"), unique_email("descope-stays")
    management.mgmt.user.create_test_user(tester, email=tester)
    management.mgmt.jwt.sign_up_or_in(person)
    found = management.mgmt.user.search_all_test_users(emails=[tester, person])["users"]
    assert [(user["email"], user["test"]) for user in found] == [(tester, True)]
    management.mgmt.user.delete_all_test_users()
    assert management.mgmt.user.search_all_test_users()["users"] == []
    assert management.mgmt.jwt.sign_up_or_in(person)["firstSeen"] is False  # still there


def sign_up(server, email: str) -> None:
    """An InsForge sign-up, which mails the verification code."""
    body = json.dumps({"email": email, "password": "a long enough password"}).encode()
    request = urllib.request.Request(server.url + "/api/auth/users", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status in (200, 201)


def test_a_mailpit_helper_finds_the_verification_mail_by_search_and_reads_it(server):
    email, other = unique_email("mailpit"), unique_email("mailpit-other")
    mailpit = API(server.url)
    mailpit.delete_messages([])  # the module's other tests may have mailed
    sign_up(server, email)
    sign_up(server, other)
    # mailpit-api-client 1.0.0 has no search call: the helper asks Mailpit's search route and
    # decodes the answer with the client's own model.
    with urllib.request.urlopen(f"{server.url}/api/v1/search?query=to:{email}", timeout=30) as response:
        found = Messages.from_json(response.read())
    assert found.total == 1 and [m.to[0].address for m in found.messages] == [email]
    message = mailpit.get_message(found.messages[0].id)
    assert message.to[0].address == email and "verif" in message.subject.lower()
    assert any(ch.isdigit() for ch in message.text)
    assert mailpit.get_messages().total == 2
    mailpit.delete_messages([])
    assert mailpit.get_messages().total == 0


def test_a_missing_message_and_a_search_gatehouse_cannot_do_are_refused(server):
    with pytest.raises(Exception) as missing:
        API(server.url).get_message("999999")
    assert "404" in str(missing.value)
    try:
        urllib.request.urlopen(f"{server.url}/api/v1/search?query=subject:hello", timeout=30)
        raise AssertionError("a search by subject was answered")
    except urllib.error.HTTPError as error:
        assert error.code == 400


def test_a_reserved_test_address_gets_424242_and_no_mail(server):
    reserved, ordinary = f"tess{SUFFIX}example.com", unique_email("ordinary")
    sign_up(server, reserved)
    sign_up(server, ordinary)
    assert read_mailbox(server.url, reserved) == [] and len(read_mailbox(server.url, ordinary)) == 1
    body = json.dumps({"email": reserved, "otp": "424242"}).encode()
    request = urllib.request.Request(server.url + "/api/auth/email/verify", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        assert json.loads(response.read())["user"]["emailVerified"] is True


def test_reserved_test_addresses_are_refused_off_loopback(tmp_path):
    refused = subprocess.run(
        [str(gatehouse_binary()), "serve", "--host", "0.0.0.0", "--port", "0", "--db", str(tmp_path / "g.sqlite"),
         "--test-address-suffix", SUFFIX], capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "loopback" in refused.stderr
    refused = subprocess.run(
        [str(gatehouse_binary()), "serve", "--port", "0", "--db", str(tmp_path / "g.sqlite"),
         "--test-address-suffix", SUFFIX, "--no-test-controls"], capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "--no-test-controls" in refused.stderr


def control(server, method: str, path: str, body: dict | None = None) -> dict:
    """A call to Gatehouse's own test controls with the management key."""
    request = urllib.request.Request(
        server.url + "/_/api/test" + path, method=method, data=json.dumps(body).encode() if body is not None else None,
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {server.management_key}"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")


def verified_insforge_session(server, email: str) -> dict:
    """An InsForge sign-up verified with the code the test controls hand over (the mailed one)."""
    sign_up(server, email)
    codes = control(server, "GET", "/codes?email=" + urllib.parse.quote(email))["items"]
    assert [item["kind"] for item in codes] == ["verification"]
    body = json.dumps({"email": email, "otp": codes[0]["code"]}).encode()
    request = urllib.request.Request(server.url + "/api/auth/email/verify?client_type=mobile", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


def test_the_pocketbase_sdks_refresh_fails_once_under_a_503_fault_then_is_held_by_a_delay(server):
    email = unique_email("fault-pb")
    verified_insforge_session(server, email)
    pb = PocketBase(server.url, timeout=30)
    pb.collection("users").auth_with_password(email, "a long enough password")
    refresh = "/api/collections/users/auth-refresh"
    control(server, "POST", "/faults", {"method": "POST", "path": refresh, "status": 503})
    with pytest.raises(ClientResponseError) as failed:
        pb.collection("users").auth_refresh()
    assert failed.value.status == 503
    assert pb.collection("users").auth_refresh().token  # the fault was spent
    control(server, "POST", "/faults", {"path": refresh, "delayMs": 300})
    started = time.monotonic()
    assert pb.collection("users").auth_refresh().token
    assert time.monotonic() - started >= 0.3
    assert control(server, "GET", "/faults")["items"] == []


def test_an_insforge_refresh_under_a_401_fault_answers_insforges_error_shape(server):
    session = verified_insforge_session(server, unique_email("fault-insforge"))
    control(server, "POST", "/faults", {"path": "/api/auth/refresh", "status": 401})
    body = json.dumps({"refreshToken": session["refreshToken"]}).encode()

    def refresh():
        request = urllib.request.Request(server.url + "/api/auth/refresh?client_type=mobile", data=body, method="POST",
                                         headers={"Content-Type": "application/json", "X-Request-Id": "e2e-refresh"})
        return urllib.request.urlopen(request, timeout=30)

    with pytest.raises(urllib.error.HTTPError) as refused:
        refresh()
    error = json.loads(refused.value.read())
    assert refused.value.code == 401 and refused.value.headers["X-Request-Id"] == "e2e-refresh"
    assert error["error"] == "AUTH_UNAUTHORIZED" and error["statusCode"] == 401 and error["message"]
    with refresh() as response:  # the token was never reached: it still refreshes
        assert response.status == 200 and json.loads(response.read())["refreshToken"] != session["refreshToken"]


def test_gatehouse_seed_makes_accounts_the_sdk_signs_in_to_and_is_a_test_control(server, tmp_path):
    email = unique_email("seeded")
    seed = tmp_path / "accounts.json"
    seed.write_text(json.dumps({"users": [
        {"id": "e2eseed00000001", "email": email, "password": "a long enough password", "verified": True,
         "tags": ["seeded"]}]}))
    made = subprocess.run([str(gatehouse_binary()), "seed", str(seed), "--db", str(server.db_path)],
                          capture_output=True, text=True, timeout=60)
    assert made.returncode == 0 and "Seeded 1 accounts" in made.stdout, made.stderr
    record = PocketBase(server.url, timeout=30).collection("users").auth_with_password(email, "a long enough password")
    assert record.record.id == "e2eseed00000001"
    refused = subprocess.run(
        [str(gatehouse_binary()), "serve", "--port", "0", "--db", str(tmp_path / "g.sqlite"), "--seed", str(seed),
         "--no-test-controls"], capture_output=True, text=True, timeout=60)
    assert refused.returncode != 0 and "--no-test-controls" in refused.stderr
