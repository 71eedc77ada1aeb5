"""The account lifecycle in a real headless Chromium against the real binary (issue 10's acceptance):
forgot password → mailbox → reset → sign in; turn on two-step sign-in (codes computed with pyotp) →
sign out → sign in with a code → sign in with a recovery code, which then works no more; change the
email address from the account page; "Sign out everywhere" ending a second signed-in client too.

Screenshots: artifacts/screenshots/lifecycle-*.png. Elements are found by field name, data attribute,
link text or form action, as in test_browser_flow.py, whose browser fixture and helpers this reuses.
Every wait is an explicit, bounded WebDriverWait.
"""

from __future__ import annotations

import time
import urllib.parse

import pyotp
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import PASSWORD, Browserless, read_mailbox, unique_email
from test_console_browser import accept_confirmations
from test_browser_flow import (  # noqa: F401 - `browser` is a fixture, used by name
    WAIT,
    browser,
    cookie_value,
    field,
    page_text,
    path_of,
    screenshot,
    sign_up_and_verify_in_browser,
    submit_form_of,
    type_into,
    wait,
    wait_for_path,
    wait_for_text,
)

NEW_PASSWORD = "a brand new passphrase 42"
TOTP_STEP = 30  # seconds; RFC 6238 default, what the enrolment page tells the person


# -- helpers --------------------------------------------------------------------------------------

def create_account(driver, base: str, email: str, name: str) -> None:
    """Sign up and verify with the mailed code; ends signed in on /account, showing the name."""
    sign_up_and_verify_in_browser(driver, base, email, name)
    wait_for_text(driver, name)


def sign_out(driver) -> None:
    """The header's Sign out button."""
    button = driver.find_element(By.XPATH, "//form[@action='/auth/sign-out']//button[@type='submit']")
    submit_form_of(driver, button)
    wait_for_path(driver, "/auth/sign-in")
    assert not cookie_value(driver, "gh_session"), "gh_session cookie still set after signing out"


def sign_in(driver, base: str, email: str, password: str) -> None:
    """Fills and sends the sign-in form; the caller checks where it led."""
    driver.get(base + "/auth/sign-in")
    email_input = field(driver, "email")
    type_into(email_input, email)
    type_into(field(driver, "password"), password)
    submit_form_of(driver, email_input)


def assert_sign_in_refused(driver, base: str, email: str, password: str) -> str:
    """Signing in fails: still on /auth/sign-in, an alert shown, no session. Returns the alert text."""
    sign_in(driver, base, email, password)
    assert path_of(driver).startswith("/auth/sign-in"), f"sign-in was not refused: at {path_of(driver)}"
    alert = wait(driver).until(EC.visibility_of_element_located((By.XPATH, "//*[@role='alert']")))
    assert alert.text.strip(), "the sign-in refusal shows an empty alert"
    assert not cookie_value(driver, "gh_session"), "a refused sign-in set a session cookie"
    return alert.text


def notice(driver) -> str:
    """The flash notice (role=status) of the page, waiting for it to be shown."""
    element = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "main [role='status']")))
    return element.text


def heading(driver) -> str:
    return wait(driver).until(EC.visibility_of_element_located((By.TAG_NAME, "h1"))).text


def wait_for_mail_link(base: str, to: str, path: str, timeout: float = WAIT) -> str:
    """The link to `path` in the newest mail to `to` that has one, waiting (bounded) for it."""
    deadline = time.monotonic() + timeout
    while True:
        mails = read_mailbox(base, to)
        for mail in mails:
            link = mail.get("link") or ""
            if urllib.parse.urlsplit(link).path == path:
                return link if link.startswith("http") else base + link
        if time.monotonic() > deadline:
            raise AssertionError(f"no mail to {to} with a link to {path} within {timeout} s: {mails!r}")
        time.sleep(0.1)


def follow_mailed_link(driver, base: str, to: str, path: str, shot: str, shots) -> str:
    """Opens the dev mailbox page for `to` (the person's inbox), checks the newest mail linking to
    `path` shows the link the JSON mailbox has, screenshots the page and clicks the link."""
    link = wait_for_mail_link(base, to, path)
    driver.get(base + "/_/mailbox?" + urllib.parse.urlencode({"to": to}))
    assert heading(driver) == "Dev mailbox"
    anchors = [a for a in driver.find_elements(By.CSS_SELECTOR, "article.mail .mail__link a")
               if urllib.parse.urlsplit(a.get_attribute("href")).path == path]
    assert anchors, f"the mailbox page shows no link to {path} for {to}:\n{page_text(driver)[:1500]}"
    assert anchors[0].get_attribute("href") == link, "the mailbox page and its JSON disagree on the link"
    screenshot(driver, shots, shot)
    anchors[0].click()
    wait_for_path(driver, path)
    return link


def current_step() -> int:
    return int(time.time()) // TOTP_STEP


def code_for_new_step(totp: pyotp.TOTP, used_step: int) -> str:
    """A code from a step newer than `used_step` (a code works once per step). Within the same 30
    seconds that is the next step's code, as from an authenticator whose clock runs a little ahead:
    Gatehouse accepts a step either side of its own for drift, so no test waits out the clock."""
    return totp.at(max(current_step(), used_step + 1) * TOTP_STEP)


def mfa_submit(driver, name: str, value: str) -> None:
    element = field(driver, name)
    type_into(element, value)
    submit_form_of(driver, element)


def field_error(driver, name: str) -> str:
    """The visible error message tied to the field (aria-describedby), which must be marked invalid."""
    element = field(driver, name)
    assert element.get_attribute("aria-invalid") == "true", f"the {name!r} field is not marked aria-invalid"
    ids = (element.get_attribute("aria-describedby") or "").split()
    errors = [driver.find_element(By.ID, i).text for i in ids
              if i.endswith("-error") and driver.find_elements(By.ID, i)]
    assert errors and errors[0].strip(), f"no error message linked to {name!r} (aria-describedby={ids})"
    return errors[0]


# -- tests ----------------------------------------------------------------------------------------

def test_forgot_password_reset_and_sign_in(browser, start_server, screenshots_dir):
    server = start_server(verification="code")
    base, driver, shots = server.url, browser, screenshots_dir
    email = unique_email("reset")
    create_account(driver, base, email, "Reset Person")
    sign_out(driver)

    # The sign-in page links to the reset form.
    driver.get(base + "/auth/sign-in")
    wait(driver).until(EC.element_to_be_clickable((By.LINK_TEXT, "Forgot password?"))).click()
    wait_for_path(driver, "/auth/forgot-password")
    assert heading(driver) == "Reset your password"
    email_input = field(driver, "email")
    type_into(email_input, email)
    screenshot(driver, shots, "lifecycle-forgot")
    submit_form_of(driver, email_input)

    # "Check your email", with the code form (code mode).
    wait_for_path(driver, "/auth/reset-password?email=")
    assert heading(driver) == "Check your email"
    assert email in page_text(driver)
    assert driver.find_elements(By.XPATH, "//form[@action='/auth/reset-password/code']//input[@name='code']"), \
        "code mode, but the check-your-mail page offers no code form"
    screenshot(driver, shots, "lifecycle-reset-sent")

    # The mail has a link and a code; follow the link from the mailbox.
    link = follow_mailed_link(driver, base, email, "/auth/reset-password", "lifecycle-reset-mailbox", shots)
    assert "token=" in link, f"the reset link carries no token: {link}"
    mail = read_mailbox(base, email)[0]
    assert mail.get("code") and mail["code"] in mail["text"], "the reset mail's text lacks its code"
    assert heading(driver) == "Choose a new password"
    password_input = field(driver, "password")
    type_into(password_input, NEW_PASSWORD)
    screenshot(driver, shots, "lifecycle-reset-new-password")
    submit_form_of(driver, password_input)

    # Signed in, told so.
    wait_for_path(driver, "/account?notice=password-reset")
    assert "new password is set" in notice(driver)
    assert email in page_text(driver)
    assert cookie_value(driver, "gh_session"), "no session after setting the new password"
    screenshot(driver, shots, "lifecycle-reset-done")

    # The link was for once only, and says so before any form, with the way to a new one.
    driver.get(link)
    assert heading(driver) == "This reset link can't be used", f"a used reset link was taken: {page_text(driver)[:500]}"
    assert driver.find_elements(By.NAME, "password") == [], "the spent link still shows the new-password form"
    assert driver.find_element(By.LINK_TEXT, "Reset your password").get_attribute("href").endswith("/auth/forgot-password")
    screenshot(driver, shots, "lifecycle-reset-link-used")

    # The old password is refused, the new one signs in.
    driver.get(base + "/account")
    sign_out(driver)
    assert_sign_in_refused(driver, base, email, PASSWORD)
    screenshot(driver, shots, "lifecycle-reset-old-password-refused")
    sign_in(driver, base, email, NEW_PASSWORD)
    wait_for_path(driver, "/account")
    wait_for_text(driver, "Reset Person")


def test_totp_enrol_sign_in_with_code_and_recovery_code(browser, start_server, screenshots_dir):
    server = start_server(verification="code")
    base, driver, shots = server.url, browser, screenshots_dir
    email = unique_email("totp")
    create_account(driver, base, email, "Two Step")

    # Off at first; start the set-up.
    driver.get(base + "/account/security")
    wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "[data-totp-status='off']")))
    begin = driver.find_element(By.CSS_SELECTOR, "button[data-totp-begin]")
    submit_form_of(driver, begin)

    # The key, as a QR code (inline SVG, visible and not tiny) and as text.
    secret_element = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "[data-totp-secret]")))
    secret = secret_element.get_attribute("data-totp-secret")
    assert secret and secret_element.text.replace(" ", "") == secret, "the key shown differs from data-totp-secret"
    qr = driver.find_element(By.CSS_SELECTOR, "[data-totp-qr] svg")
    assert qr.is_displayed() and qr.size["width"] >= 120 and qr.size["height"] >= 120, f"QR code too small: {qr.size}"
    setup_url = driver.find_element(By.CSS_SELECTOR, "[data-totp-url]").get_attribute("textContent")
    assert pyotp.parse_uri(setup_url).secret == secret, f"the otpauth:// URL holds another key: {setup_url}"
    totp = pyotp.TOTP(secret)
    screenshot(driver, shots, "lifecycle-totp-setup")

    # A wrong code is refused, and the same key stays on screen.
    code_input = field(driver, "code")
    right = totp.now()
    type_into(code_input, f"{(int(right) + 1) % 1_000_000:06d}")
    submit_form_of(driver, code_input)
    assert "isn't right" in field_error(driver, "code")
    assert driver.find_element(By.CSS_SELECTOR, "[data-totp-secret]").get_attribute("data-totp-secret") == secret
    screenshot(driver, shots, "lifecycle-totp-wrong-code")

    # Confirm with the current code; ten recovery codes are shown once.
    now = time.time()  # the code and its step from one instant, so they agree at a step boundary
    code, confirm_step = totp.at(now), int(now) // TOTP_STEP
    code_input = field(driver, "code")
    type_into(code_input, code)
    submit_form_of(driver, code_input)
    codes = [e.text.strip() for e in wait(driver).until(
        EC.visibility_of_all_elements_located((By.CSS_SELECTOR, "[data-recovery-code]")))]
    assert len(codes) == 10 and len(set(codes)) == 10 and all(codes), f"expected 10 distinct recovery codes: {codes}"
    # They download as a text file (a data: link, no script needed) and copy with one button.
    download = driver.find_element(By.CSS_SELECTOR, "a[download='gatehouse-recovery-codes.txt']")
    prefix, _, encoded = download.get_attribute("href").partition(",")
    assert prefix == "data:text/plain;charset=utf-8"
    assert urllib.parse.unquote(encoded).split("\n")[3:13] == codes
    assert driver.find_element(By.CSS_SELECTOR, "button[data-copy-codes]").is_displayed()
    screenshot(driver, shots, "lifecycle-totp-recovery-codes")
    driver.find_element(By.CSS_SELECTOR, "a[data-codes-saved]").click()
    wait_for_path(driver, "/account/security?notice=totp-on")
    assert "Two-step sign-in is on" in notice(driver)
    driver.find_element(By.CSS_SELECTOR, "[data-totp-status='on']")
    assert driver.find_element(By.CSS_SELECTOR, "[data-recovery-codes-left]").get_attribute(
        "data-recovery-codes-left") == "10"
    screenshot(driver, shots, "lifecycle-totp-on")

    # Sign out; the password alone now leads to the second step.
    sign_out(driver)
    sign_in(driver, base, email, PASSWORD)
    wait_for_path(driver, "/auth/mfa")
    assert heading(driver) == "Two-step sign-in"
    assert not cookie_value(driver, "gh_session"), "signed in before the second step"
    screenshot(driver, shots, "lifecycle-mfa")

    # The code used to confirm the set-up is spent: replaying it is refused.
    mfa_submit(driver, "code", code)
    assert path_of(driver).startswith("/auth/mfa"), f"a replayed code was taken: {path_of(driver)}"
    assert "isn't right" in field_error(driver, "code")
    assert not cookie_value(driver, "gh_session")
    screenshot(driver, shots, "lifecycle-mfa-code-refused")
    # The authenticator's code of a newer step signs in.
    mfa_submit(driver, "code", code_for_new_step(totp, confirm_step))
    wait_for_path(driver, "/account")
    wait_for_text(driver, "Two Step")
    assert cookie_value(driver, "gh_session")

    # Sign out; sign in with a recovery code instead.
    sign_out(driver)
    sign_in(driver, base, email, PASSWORD)
    wait_for_path(driver, "/auth/mfa")
    wait(driver).until(EC.element_to_be_clickable((By.LINK_TEXT, "Use a recovery code"))).click()
    wait_for_path(driver, "/auth/mfa")
    assert "method=recovery" in path_of(driver)
    recovery_input = field(driver, "recovery_code")
    type_into(recovery_input, codes[0])
    screenshot(driver, shots, "lifecycle-mfa-recovery")
    submit_form_of(driver, recovery_input)
    # Signed in, on the security tab, told the code is spent and how many are left.
    wait_for_path(driver, "/account/security?notice=recovery-code-used")
    assert "recovery code, which now works no more" in notice(driver)
    assert driver.find_element(By.CSS_SELECTOR, "[data-recovery-codes-left]").get_attribute(
        "data-recovery-codes-left") == "9", "a used recovery code still counts as unused"
    assert "9 unused recovery codes left" in page_text(driver)

    # The same recovery code a second time is refused; another one still works.
    sign_out(driver)
    sign_in(driver, base, email, PASSWORD)
    wait_for_path(driver, "/auth/mfa")
    driver.find_element(By.LINK_TEXT, "Use a recovery code").click()
    wait_for_path(driver, "/auth/mfa")
    mfa_submit(driver, "recovery_code", codes[0])
    assert path_of(driver).startswith("/auth/mfa"), f"a used recovery code was taken again: {path_of(driver)}"
    assert "already used" in field_error(driver, "recovery_code")
    assert not cookie_value(driver, "gh_session")
    screenshot(driver, shots, "lifecycle-mfa-recovery-reused")
    mfa_submit(driver, "recovery_code", codes[1])
    wait_for_path(driver, "/account")


def test_change_email(browser, start_server, screenshots_dir):
    server = start_server(verification="code")
    base, driver, shots = server.url, browser, screenshots_dir
    old_email, new_email = unique_email("old"), unique_email("new")
    create_account(driver, base, old_email, "Mover")

    # From the account page to the change form.
    wait(driver).until(EC.element_to_be_clickable((By.LINK_TEXT, "Change email"))).click()
    wait_for_path(driver, "/account/email")
    assert heading(driver) == "Change your email"
    assert old_email in page_text(driver)

    # A wrong password is refused and nothing is mailed.
    email_input = field(driver, "email")
    type_into(email_input, new_email)
    type_into(field(driver, "password"), "not my password")
    screenshot(driver, shots, "lifecycle-email-change")
    submit_form_of(driver, email_input)
    assert path_of(driver).startswith("/account/email")
    assert field_error(driver, "password")
    assert field(driver, "email").get_attribute("value") == new_email, "the new address typed was not kept"
    assert read_mailbox(base, new_email) == [], "a refused change mailed the new address"
    screenshot(driver, shots, "lifecycle-email-wrong-password")

    # With the current password: asked, the old address stays until confirmed.
    type_into(field(driver, "password"), PASSWORD)
    submit_form_of(driver, field(driver, "password"))
    wait_for_path(driver, "/account?notice=email-change-requested")
    assert "Check the new address" in notice(driver)
    assert old_email in page_text(driver)
    screenshot(driver, shots, "lifecycle-email-requested")

    # The link mailed to the new address, then Confirm.
    follow_mailed_link(driver, base, new_email, "/auth/confirm-email", "lifecycle-email-mailbox", shots)
    assert heading(driver) == "Confirm your new email"
    screenshot(driver, shots, "lifecycle-email-confirm")
    # The account's password again: the link alone never moves an account (issue 22, item 4).
    type_into(field(driver, "password"), PASSWORD)
    confirm = driver.find_element(By.XPATH, "//form[@action='/auth/confirm-email']//button[@type='submit']")
    submit_form_of(driver, confirm)
    wait_for_path(driver, "/account?notice=email-changed")
    assert "email address is changed" in notice(driver)
    profile_email = driver.find_element(By.CSS_SELECTOR, ".profile__email").text
    assert new_email in profile_email and old_email not in page_text(driver), f"account shows: {profile_email}"
    screenshot(driver, shots, "lifecycle-email-changed")

    # The old address no longer signs in; the new one does.
    sign_out(driver)
    assert_sign_in_refused(driver, base, old_email, PASSWORD)
    screenshot(driver, shots, "lifecycle-email-old-refused")
    sign_in(driver, base, new_email, PASSWORD)
    wait_for_path(driver, "/account")
    wait_for_text(driver, new_email)


def test_sign_out_everywhere(browser, start_server, screenshots_dir):
    server = start_server(verification="code")
    base, driver, shots = server.url, browser, screenshots_dir
    email = unique_email("everywhere")
    create_account(driver, base, email, "Many Devices")

    # A second client signs in too (a cookie-keeping HTTP client: another device).
    other = Browserless(base)
    status, headers, _ = other.form_post("/auth/sign-in", "/auth/sign-in", {"email": email, "password": PASSWORD})
    assert status == 303 and headers["Location"] == "/account", f"second sign-in: {status} {headers['Location']}"
    status, _, page = other.get("/account")
    assert status == 200 and email in page, f"the second client is not signed in: {status}"

    # Both sessions are listed, this one marked.
    driver.get(base + "/account/sessions")
    wait_for_text(driver, "Where you're signed in")
    rows = driver.find_elements(By.CSS_SELECTOR, "[data-session]")
    assert len(rows) == 2, f"expected 2 sessions listed, got {len(rows)}:\n{page_text(driver)[:1000]}"
    assert sum("This device" in row.text for row in rows) == 1, "not exactly one session marked 'This device'"
    assert driver.find_elements(By.CSS_SELECTOR, "button[data-sign-out-others]"), "no 'Sign out everywhere else'"
    screenshot(driver, shots, "lifecycle-sessions")

    # Sign out everywhere.
    everywhere = driver.find_element(By.CSS_SELECTOR, "button[data-sign-out-all]")
    assert everywhere.text == "Sign out everywhere"
    accept_confirmations(driver)
    submit_form_of(driver, everywhere)
    wait_for_path(driver, "/auth/sign-in?notice=signed-out-everywhere")
    assert "signed out everywhere" in notice(driver)
    assert not cookie_value(driver, "gh_session")
    screenshot(driver, shots, "lifecycle-signed-out-everywhere")

    # This browser and the other client are both signed out.
    driver.get(base + "/account")
    wait_for_path(driver, "/auth/sign-in")
    status, headers, _ = other.get("/account")
    assert status in (302, 303) and headers["Location"].startswith("/auth/sign-in"), \
        f"the other client is still signed in: {status} {headers.get('Location')}"
