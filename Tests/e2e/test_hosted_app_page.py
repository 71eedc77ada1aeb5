"""An app's hosted sign-in page (issue 25, item 1) in a real headless Chromium: the page is the app's
(its name, logo, accent colour, terms and privacy links), and every way through Gatehouse's pages —
sign-up verified by code, forgot password, email code, magic link, a passkey, the authenticator-app
second step, "Continue as …" — ends at the app's registered callback with a code that the app exchanges
(with its PKCE verifier) for tokens of that person. A callback that is not registered is refused, and
the console's edit page previews a new accent, in its dark frame too, as it is typed.

The app's callback is a tiny loopback HTTP server run by the test, so the browser really lands on
it; the code is read from `driver.current_url`."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
import threading
import time
import urllib.parse
import urllib.request
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from selenium.webdriver.common.by import By

from conftest import PASSWORD, http_get, latest_code, read_mailbox, unique_email
from test_browser_flow import (browser, field, is_detached, page_text, sign_up_and_verify_in_browser,  # noqa: F401
                               submit_form_of, type_into, wait, wait_for_path, wait_for_text)
from test_passkeys_browser import add_authenticator, create_passkey, credentials, turn_on_totp

ACCENT = "#0f766e"  # teal: white text on it
NEW_PASSWORD = "quiet-otter-123"


def png(width: int = 96, height: int = 48) -> bytes:
    """A solid teal PNG: the app's logo."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes((15, 118, 110)) * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


class AppServer:
    """The app's side on loopback: `/callback` (where the browser lands) and `/logo.png`."""

    def __init__(self):
        logo = png()

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - http.server API
                body, kind = (logo, "image/png") if self.path == "/logo.png" else (b"<h1>Notes app</h1>", "text/html")
                self.send_response(200)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.callback = f"http://127.0.0.1:{self.port}/callback"
        self.logo = f"http://localhost:{self.port}/logo.png"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def app_server():
    server = AppServer()
    try:
        yield server
    finally:
        server.close()


def api(base: str, token: str, path: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(base + path, data=json.dumps(body).encode(), method="POST", headers={
        "Content-Type": "application/json", "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


def register_app(server, app_server, **branding) -> None:
    status, body = api(server.url, server.superuser_token(), "/_/api/apps", {
        "id": "notes", "name": "Notes app", "callbackURLs": [app_server.callback], **branding})
    assert status == 201, body


class AppRequest:
    """One sign-in request the app starts: a fresh PKCE verifier and the hosted page's URL."""

    def __init__(self, base: str, callback: str):
        self.base = base
        self.verifier = secrets.token_urlsafe(48)
        challenge = base64.urlsafe_b64encode(hashlib.sha256(self.verifier.encode()).digest()).rstrip(b"=").decode()
        self.url = base + "/auth/sign-in?" + urllib.parse.urlencode({
            "redirect": callback, "client_type": "web", "code_challenge": challenge, "code_challenge_method": "S256"})

    def exchange(self, driver, callback: str) -> dict:
        """Waits for the browser to land on the app's callback and exchanges the code there."""
        try:
            wait(driver).until(lambda d: d.current_url.startswith(callback + "?"))
        except Exception:
            raise AssertionError(f"expected the app's callback, but the browser is at {driver.current_url}; page says:\n"
                                 f"{page_text(driver)[:1200]}") from None
        code = urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query)["insforge_code"][0]
        request = urllib.request.Request(
            self.base + "/api/auth/oauth/exchange?client_type=web", method="POST",
            data=json.dumps({"code": code, "code_verifier": self.verifier}).encode(),
            headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=30) as response:
            tokens = json.loads(response.read())
        assert tokens["accessToken"], tokens
        return tokens


def mailed_link(base: str, to: str, after: int = 0, timeout: float = 10) -> str:
    """The link in the newest mail to `to`, once more than `after` mails arrived."""
    deadline = time.monotonic() + timeout
    while True:
        mails = read_mailbox(base, to)
        if len(mails) > after and mails[0].get("link"):
            return mails[0]["link"]
        assert time.monotonic() < deadline, f"no new mail with a link for {to}: {mails!r}"
        time.sleep(0.1)


def open_app_page(driver, base: str, callback: str) -> AppRequest:
    """A new request from the app, in a browser with no Gatehouse session."""
    driver.delete_all_cookies()
    app = AppRequest(base, callback)
    driver.get(app.url)
    return app


def ask_by_mail(driver, base: str, email: str, method: str) -> int:
    """Types the address on the app's page, presses "Email me a sign-in code/link" and returns how
    many mails the address had before."""
    before = len(read_mailbox(base, email))
    type_into(field(driver, "email"), email)
    button = driver.find_element(By.CSS_SELECTOR, f"button[data-method='{method}']")
    form = button.find_element(By.XPATH, "./ancestor::form[1]")
    button.click()
    wait(driver).until(lambda d: is_detached(form))
    wait(driver).until(lambda d: d.execute_script("return document.readyState") == "complete")
    return before


def test_branded_page_sign_up_continue_as_passkey_and_console_preview(browser, start_server, app_server):
    server = start_server(verification="code")
    # A host name, not an IP address: passkeys need one (the relying party id).
    base, driver = server.url.replace("127.0.0.1", "localhost"), browser
    register_app(server, app_server, logoURL=app_server.logo, accentColor=ACCENT,
                 termsURL="https://notes.example/terms", privacyURL="https://notes.example/privacy")

    # The page is the app's: its name, logo, accent on the primary button, legal links.
    app = AppRequest(base, app_server.callback)
    driver.get(app.url)
    assert driver.find_element(By.TAG_NAME, "h1").text == "Sign in to Notes app"
    logo = driver.find_element(By.CSS_SELECTOR, "img[data-app-logo-img]")
    wait(driver).until(lambda d: d.execute_script("return arguments[0].complete && arguments[0].naturalWidth", logo) == 96)
    primary = driver.find_element(By.CSS_SELECTOR, "form[action='/auth/sign-in'] button.btn-primary")
    assert primary.value_of_css_property("background-color") == "rgba(15, 118, 110, 1)"
    assert primary.value_of_css_property("color") == "rgba(255, 255, 255, 1)"
    assert driver.find_element(By.LINK_TEXT, "Terms").get_attribute("href") == "https://notes.example/terms"
    assert driver.find_element(By.LINK_TEXT, "Privacy").get_attribute("href") == "https://notes.example/privacy"
    for way in ("email-code", "magic-link"):
        assert driver.find_element(By.CSS_SELECTOR, f"button[data-method='{way}']").is_displayed()

    # A logo that does not load gives way to the app's name.
    status, _ = api(server.url, server.superuser_token(), "/_/api/apps", {
        "id": "drafts", "name": "Drafts", "callbackURLs": [app_server.callback + "/drafts"],
        "logoURL": "https://logo.invalid/missing.png"})
    assert status == 201
    driver.get(AppRequest(base, app_server.callback + "/drafts").url)
    name = driver.find_element(By.CSS_SELECTOR, "[data-app-logo-name]")
    wait(driver).until(lambda d: name.is_displayed())
    assert name.text == "Drafts"
    assert not driver.find_element(By.CSS_SELECTOR, "img[data-app-logo-img]").is_displayed()

    # A return address no app registered is refused on Gatehouse's own page, never followed.
    tampered = AppRequest(base, f"http://127.0.0.1:{app_server.port}/elsewhere")
    status, body = http_get(tampered.url)
    assert status == 400 and "not registered for any app" in body
    driver.get(tampered.url)
    wait_for_text(driver, "This sign-in request was refused")

    # Sign-up started here, verified by the mailed code, ends at the app with a code for this person.
    email = unique_email("hosted-signup")
    driver.get(app.url)
    driver.find_element(By.LINK_TEXT, "Create an account").click()
    wait_for_text(driver, "Create your Notes app account")
    type_into(field(driver, "name"), "Ada Notes")
    type_into(field(driver, "email"), email)
    password = field(driver, "password")
    type_into(password, PASSWORD)
    submit_form_of(driver, password)
    code = field(driver, "code")
    type_into(code, latest_code(base, email))
    submit_form_of(driver, code)
    assert app.exchange(driver, app_server.callback)["user"]["email"] == email

    # Back at the app's page with a Gatehouse session: one click continues as that person.
    again = AppRequest(base, app_server.callback)
    driver.get(again.url)
    button = driver.find_element(By.CSS_SELECTOR, "button[data-continue-as]")
    assert button.text == f"Continue as {email}"
    button.click()
    assert again.exchange(driver, app_server.callback)["user"]["email"] == email

    # A passkey for later; the authenticator is put away while the page is looked at.
    authenticator = add_authenticator(driver)
    create_passkey(driver, base, "Laptop")
    saved = credentials(driver, authenticator)[0]
    driver.execute_cdp_cmd("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator})

    # "Use another account" signs out of Gatehouse and shows the app's form again.
    other = AppRequest(base, app_server.callback)
    driver.get(other.url)
    submit_form_of(driver, driver.find_element(By.CSS_SELECTOR, "button[data-use-another]"))
    assert driver.find_element(By.TAG_NAME, "h1").text == "Sign in to Notes app"
    assert not driver.find_elements(By.CSS_SELECTOR, "button[data-continue-as]")
    assert field(driver, "password").is_displayed()

    # With the authenticator back, the page's passkey autofill signs in (no password, no second
    # step) and ends at the app too.
    authenticator = add_authenticator(driver)
    driver.execute_cdp_cmd("WebAuthn.addCredential", {"authenticatorId": authenticator, "credential": saved})
    driver.get(other.url)
    assert other.exchange(driver, app_server.callback)["user"]["email"] == email

    # The console edits the app with a live preview: a new accent shows in the framed page as typed.
    driver.get(base + "/_/")
    for name, value in (("email", "e2e-admin@example.com"), ("password", "e2e-admin-password")):
        type_into(field(driver, name), value)
    submit_form_of(driver, field(driver, "password"))
    driver.get(base + "/_/providers/apps/notes/edit")
    type_into(field(driver, "accentColor"), "#c2410c")
    frame = driver.find_element(By.CSS_SELECTOR, "iframe.cx-preview__frame--dark")
    wait(driver).until(lambda d: "c2410c" in frame.get_attribute("src"))
    driver.switch_to.frame(frame)
    wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, "button.btn-primary").value_of_css_property(
        "background-color") == "rgba(194, 65, 12, 1)")
    assert driver.execute_script("return matchMedia('(prefers-color-scheme: dark)').matches")
    driver.switch_to.default_content()
    submit_form_of(driver, field(driver, "accentColor"))
    wait_for_path(driver, "/_/providers?notice=app-updated")


def test_forgot_password_email_code_magic_link_and_second_step_end_at_the_app(browser, start_server, app_server):
    server = start_server(verification="code")
    base, driver = server.url, browser
    register_app(server, app_server, accentColor=ACCENT)
    email = unique_email("hosted-ways")
    sign_up_and_verify_in_browser(driver, base, email, "Grace Notes")

    # Forgot password from the app's page: the mailed link, a new password, then the app.
    app = open_app_page(driver, base, app_server.callback)
    driver.find_element(By.LINK_TEXT, "Forgot password?").click()
    address = field(driver, "email")
    # The pages on the way are the app's too: its accent on the button, and no Gatehouse header.
    primary = driver.find_element(By.CSS_SELECTOR, "main button.btn-primary")
    assert primary.value_of_css_property("background-color") == "rgba(15, 118, 110, 1)"
    assert not driver.find_elements(By.CSS_SELECTOR, "header.site-header")
    type_into(address, email)
    before = len(read_mailbox(base, email))
    submit_form_of(driver, address)
    driver.get(mailed_link(base, email, after=before))
    new_password = field(driver, "password")
    type_into(new_password, NEW_PASSWORD)
    submit_form_of(driver, new_password)
    assert app.exchange(driver, app_server.callback)["user"]["email"] == email

    # Email code from the app's page.
    app = open_app_page(driver, base, app_server.callback)
    before = ask_by_mail(driver, base, email, "email-code")
    code = field(driver, "code")
    wait(driver).until(lambda d: len(read_mailbox(base, email)) > before)
    type_into(code, latest_code(base, email))
    submit_form_of(driver, code)
    assert app.exchange(driver, app_server.callback)["user"]["email"] == email

    # Magic link, opened in the browser that asked.
    app = open_app_page(driver, base, app_server.callback)
    before = ask_by_mail(driver, base, email, "magic-link")
    wait_for_text(driver, "Check your email")
    driver.get(mailed_link(base, email, after=before))
    assert app.exchange(driver, app_server.callback)["user"]["email"] == email

    # Signed in by that link, the person turns on an authenticator app; then the password on the
    # app's page asks for its code, and the code ends at the app.
    totp = turn_on_totp(driver, base)
    app = open_app_page(driver, base, app_server.callback)
    for name, value in (("email", email), ("password", NEW_PASSWORD)):
        type_into(field(driver, name), value)
    submit_form_of(driver, field(driver, "password"))
    wait_for_path(driver, "/auth/mfa")
    code = field(driver, "code")
    type_into(code, totp.at(time.time() + 30))
    submit_form_of(driver, code)
    assert app.exchange(driver, app_server.callback)["user"]["email"] == email
