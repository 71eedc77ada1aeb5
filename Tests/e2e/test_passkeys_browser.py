"""Passkeys on the hosted pages in a real headless Chromium, with Chromium's virtual authenticator
(CDP `WebAuthn.addVirtualAuthenticator`: CTAP2, internal transport, resident keys, user
verification): sign up with a password, turn on an authenticator app, add a passkey, sign out,
sign in with it by autofill without typing an email and then with the button — no password, no
code step —, rename and delete it and see passkey sign-in refused; a cancelled ceremony (the
authenticator removed) says so; and a passkey-only account (no password) from sign-up to a first
password."""

from __future__ import annotations

import subprocess
import time

import pyotp
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import PASSWORD, latest_code, unique_email
from test_console_browser import accept_confirmations
from test_browser_flow import (browser, field, page_text, path_of, screenshot, sign_up_and_verify_in_browser,  # noqa: F401
                               submit_form_of, type_into, wait, wait_for_path, wait_for_text)


def add_authenticator(driver) -> str:
    driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
    return driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
        "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
        "isUserVerified": True, "automaticPresenceSimulation": True,
    }})["authenticatorId"]


def credentials(driver, authenticator: str) -> list[dict]:
    return driver.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]


def turn_on_totp(driver, base: str) -> pyotp.TOTP:
    driver.get(base + "/account/security")
    submit_form_of(driver, wait(driver).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "button[data-totp-begin]"))))
    secret = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "[data-totp-secret]"))
                                ).get_attribute("data-totp-secret")
    code = field(driver, "code")
    type_into(code, pyotp.TOTP(secret).now())
    submit_form_of(driver, code)
    driver.find_element(By.CSS_SELECTOR, "a[data-codes-saved]").click()
    wait_for_path(driver, "/account/security?notice=totp-on")
    return pyotp.TOTP(secret)


def sign_in_with_password(driver, base: str, email: str, totp: pyotp.TOTP) -> None:
    """The password and then the authenticator app's code (next step's: this step's was spent)."""
    driver.get(base + "/auth/sign-in")
    type_into(field(driver, "email"), email)
    password = field(driver, "password")
    type_into(password, PASSWORD)
    submit_form_of(driver, password)
    wait_for_path(driver, "/auth/mfa")
    code = field(driver, "code")
    type_into(code, totp.at(time.time() + 30))
    submit_form_of(driver, code)
    wait_for_path(driver, "/account")


def create_passkey(driver, base: str, name: str) -> None:
    driver.get(base + "/account/security")
    form = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "form[data-passkey-create]")))
    type_into(form.find_element(By.NAME, "name"), name)
    form.find_element(By.CSS_SELECTOR, "[data-passkey-create-button]").click()
    wait_for_path(driver, "/account/security?notice=passkey-added")


def sign_out(driver) -> None:
    form = driver.find_element(By.CSS_SELECTOR, "form[action='/auth/sign-out']")
    submit_form_of(driver, form.find_element(By.CSS_SELECTOR, "button"))


def passkey_message(driver) -> str:
    element = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "[data-passkey-sign-in] [data-passkey-message]")))
    return element.text


def test_password_account_adds_a_passkey_signs_in_with_it_and_deletes_it(browser, start_server, screenshots_dir):
    server = start_server(verification="code")
    base, driver = server.url.replace("127.0.0.1", "localhost"), browser
    email = unique_email("passkey")
    sign_up_and_verify_in_browser(driver, base, email, "Pat Key")
    # Right after sign-up the account page offers a passkey.
    prompt = driver.find_element(By.CSS_SELECTOR, "[data-passkey-prompt] a")
    assert prompt.text == "Create a passkey" and prompt.get_attribute("href").endswith("/account/security#passkeys")
    totp = turn_on_totp(driver, base)
    authenticator = add_authenticator(driver)

    create_passkey(driver, base, "Laptop")
    wait_for_text(driver, "Passkey created")
    assert "Laptop" in driver.find_element(By.CSS_SELECTOR, "[data-passkey-list]").text
    stored = credentials(driver, authenticator)
    assert len(stored) == 1 and stored[0]["isResidentCredential"], stored
    screenshot(driver, screenshots_dir, "passkeys-security-tab")

    # Sign out: the sign-in page asks for a passkey by autofill (mediation "conditional") as it
    # loads, and the virtual authenticator answers as a person picking the suggestion would. No
    # email typed, no password, no authenticator-app step.
    sign_out(driver)
    wait_for_path(driver, "/account")
    assert "/auth/mfa" not in driver.current_url and email in page_text(driver)

    # The button, with the email typed: the authenticator is away while the page loads (so autofill
    # has nothing to offer), then comes back holding the same passkey.
    saved = credentials(driver, authenticator)[0]
    driver.execute_cdp_cmd("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator})
    sign_out(driver)
    screenshot(driver, screenshots_dir, "passkeys-sign-in")
    type_into(field(driver, "email"), email)
    authenticator = add_authenticator(driver)
    driver.execute_cdp_cmd("WebAuthn.addCredential", {"authenticatorId": authenticator, "credential": saved})
    driver.find_element(By.CSS_SELECTOR, "[data-passkey-button]").click()
    wait_for_path(driver, "/account")
    assert "/auth/mfa" not in driver.current_url and email in page_text(driver)

    # Rename, then delete it; passkey sign-in is refused after.
    driver.get(base + "/account/security")
    rename = driver.find_element(By.CSS_SELECTOR, "[data-passkey-list] input[name=name]")
    type_into(rename, "Work laptop")
    submit_form_of(driver, rename)
    wait_for_text(driver, "Passkey renamed")
    assert "Work laptop" in driver.find_element(By.CSS_SELECTOR, "[data-passkey-list]").text
    accept_confirmations(driver)
    submit_form_of(driver, driver.find_element(By.CSS_SELECTOR, "[data-passkey-delete]"))
    wait_for_text(driver, "Passkey deleted")
    assert not driver.find_elements(By.CSS_SELECTOR, "[data-passkey-list]")
    # The authenticator still holds it and answers the page's autofill request: refused.
    sign_out(driver)
    assert "not registered here" in passkey_message(driver)
    assert driver.current_url.split("?")[0].endswith("/auth/sign-in")

    # Cancelled: the person declines the authenticator's check (the virtual authenticator refuses
    # user verification, as a closed prompt does): creating a passkey ends with a message.
    driver.execute_cdp_cmd("WebAuthn.setUserVerified", {"authenticatorId": authenticator, "isUserVerified": False})
    sign_in_with_password(driver, base, email, totp)
    driver.get(base + "/account/security")
    form = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "form[data-passkey-create]")))
    form.find_element(By.CSS_SELECTOR, "[data-passkey-create-button]").click()
    message = form.find_element(By.CSS_SELECTOR, "[data-passkey-message]")
    wait(driver, 30).until(lambda d: message.text)
    assert "cancelled or timed out" in message.text, message.text
    assert len(credentials(driver, authenticator)) == 1, "a declined ceremony still made a credential"
    screenshot(driver, screenshots_dir, "passkeys-cancelled")


def test_passkey_only_account_signs_up_signs_in_and_sets_a_password_later(browser, start_server, screenshots_dir):
    """Sign up with a passkey and no password, verify the address, sign out, sign back in with the
    passkey; its last passkey cannot be deleted until the account has a password."""
    server = start_server(verification="code")
    base, driver = server.url.replace("127.0.0.1", "localhost"), browser
    email = unique_email("passkey-only")
    authenticator = add_authenticator(driver)

    # The button wants an address first.
    driver.get(base + "/auth/sign-up")
    button = wait(driver).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "[data-passkey-sign-up] [data-passkey-button]")))
    button.click()
    message = driver.find_element(By.CSS_SELECTOR, "[data-passkey-sign-up] [data-passkey-message]")
    wait(driver).until(lambda d: message.text)
    assert "Enter your email address" in message.text and not credentials(driver, authenticator)

    driver.get(base + "/auth/sign-up")
    button = wait(driver).until(EC.element_to_be_clickable((By.CSS_SELECTOR, "[data-passkey-sign-up] [data-passkey-button]")))
    type_into(field(driver, "name"), "Pat Keyonly")
    type_into(field(driver, "email"), email)
    screenshot(driver, screenshots_dir, "passkeys-sign-up")
    button.click()
    # The address is verified as after a password sign-up: the mailed code, then signed in.
    wait_for_path(driver, "/auth/verify")
    code = field(driver, "code")
    type_into(code, latest_code(base, email))
    submit_form_of(driver, code)
    wait_for_path(driver, "/account")
    assert email in page_text(driver)
    assert not driver.find_elements(By.CSS_SELECTOR, "[data-passkey-prompt]"), "offered a passkey to an account made with one"
    stored = credentials(driver, authenticator)
    assert len(stored) == 1 and stored[0]["isResidentCredential"], stored

    # No password yet: the security tab offers to set one, and refuses to delete the only passkey.
    driver.get(base + "/account/security")
    assert driver.find_elements(By.CSS_SELECTOR, "[data-first-password]")
    assert not driver.find_elements(By.NAME, "current_password")
    accept_confirmations(driver)
    submit_form_of(driver, driver.find_element(By.CSS_SELECTOR, "[data-passkey-delete]"))
    wait_for_text(driver, "your only way to sign in")
    assert len(driver.find_elements(By.CSS_SELECTOR, "[data-passkey-list] [data-passkey]")) == 1

    # Signed out, the sign-in page's autofill request meets the passkey: signed straight back in.
    sign_out(driver)
    wait_for_path(driver, "/account")
    assert email in page_text(driver)

    # A first password, with no current one to give; then the passkey may go, and the password signs in.
    driver.get(base + "/account/security")
    new_password = field(driver, "new_password")
    type_into(new_password, PASSWORD)
    submit_form_of(driver, new_password)
    wait_for_text(driver, "Password set")
    assert driver.find_elements(By.NAME, "current_password"), "the form still asks no current password"
    accept_confirmations(driver)
    submit_form_of(driver, driver.find_element(By.CSS_SELECTOR, "[data-passkey-delete]"))
    wait_for_text(driver, "Passkey deleted")
    driver.execute_cdp_cmd("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator})
    sign_out(driver)
    type_into(field(driver, "email"), email)
    password = field(driver, "password")
    type_into(password, PASSWORD)
    submit_form_of(driver, password)
    wait_for_path(driver, "/account")
    assert email in page_text(driver)


STAFF_EMAIL, STAFF_PASSWORD = "passkey-staff@example.com", "quiet-otter-123 staff"


def test_superusers_console_passkey_skips_the_code_step_and_never_crosses_with_a_persons(
        browser, start_server, binary, tmp_path, screenshots_dir):
    """A superuser with an authenticator app adds a console passkey and signs in to the console with
    it by autofill (no password, no code); a person's passkey on the same device is refused by the
    console, and the console passkey by the account pages."""
    db = tmp_path / "staff-passkeys.sqlite"
    created = subprocess.run([str(binary), "superuser", "create", STAFF_EMAIL, "--password-stdin", "--db", str(db)],
                             input=STAFF_PASSWORD + "\n", capture_output=True, text=True, timeout=60)
    assert created.returncode == 0, created.stderr
    server = start_server(db_path=db, verification="none")
    base, driver = server.url.replace("127.0.0.1", "localhost"), browser
    authenticator = add_authenticator(driver)

    # A person's passkey-only account (addresses are not verified here: signed straight in).
    driver.get(base + "/auth/sign-up")
    type_into(field(driver, "email"), unique_email("person"))
    driver.find_element(By.CSS_SELECTOR, "[data-passkey-sign-up] [data-passkey-button]").click()
    wait_for_path(driver, "/account?notice=welcome")
    person = credentials(driver, authenticator)[0]

    # The console's sign-in page asks by autofill as it loads; the person's passkey answers: refused.
    driver.get(base + "/_/")
    assert "not registered here" in passkey_message(driver)
    assert path_of(driver).startswith("/_/") and not driver.find_elements(By.CSS_SELECTOR, "form[action='/_/sign-out']")

    # Password, then an authenticator app for the console, then a console passkey.
    type_into(field(driver, "email"), STAFF_EMAIL)
    password = field(driver, "password")
    type_into(password, STAFF_PASSWORD)
    submit_form_of(driver, password)
    wait_for_path(driver, "/_/users")
    driver.get(base + "/_/security")
    submit_form_of(driver, driver.find_element(By.CSS_SELECTOR, "button[data-totp-begin]"))
    secret = driver.find_element(By.CSS_SELECTOR, "[data-totp-secret]").get_attribute("data-totp-secret")
    code = field(driver, "code")
    type_into(code, pyotp.TOTP(secret).now())
    submit_form_of(driver, code)
    driver.find_element(By.CSS_SELECTOR, "a[data-codes-saved]").click()
    wait_for_path(driver, "/_/security?notice=totp-on")
    form = wait(driver).until(EC.visibility_of_element_located((By.CSS_SELECTOR, "form[data-passkey-create]")))
    type_into(form.find_element(By.NAME, "name"), "Staff laptop")
    form.find_element(By.CSS_SELECTOR, "[data-passkey-create-button]").click()
    wait_for_path(driver, "/_/security?notice=passkey-added")
    assert "Staff laptop" in driver.find_element(By.CSS_SELECTOR, "[data-console-passkeys] [data-passkey-list]").text
    driver.get(base + "/_/security")
    screenshot(driver, screenshots_dir, "passkeys-console-security")

    # Only the console passkey on the device now: signed out, the sign-in page's autofill signs the
    # superuser in with it — no password, no authenticator-app code.
    driver.execute_cdp_cmd("WebAuthn.removeCredential",
                           {"authenticatorId": authenticator, "credentialId": person["credentialId"]})
    submit_form_of(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/_/sign-out'] button"))
    wait_for_path(driver, "/_/users")
    assert not driver.find_elements(By.NAME, "code") and STAFF_EMAIL in page_text(driver)

    # The account pages refuse the console passkey.
    driver.delete_cookie("gh_session")
    driver.get(base + "/auth/sign-in")
    assert "not registered here" in passkey_message(driver)

    # Deleted, it no longer opens the console (the device still holds it and answers the autofill).
    driver.get(base + "/_/security")
    driver.find_element(By.CSS_SELECTOR, "[data-console-passkeys] [data-passkey-delete]").click()
    alert = wait(driver).until(EC.alert_is_present())
    assert "no longer sign you in to the console" in alert.text
    alert.accept()
    wait_for_path(driver, "/_/security?notice=passkey-deleted")
    assert driver.find_elements(By.CSS_SELECTOR, "[data-console-passkeys] [data-passkey-none]")
    submit_form_of(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/_/sign-out'] button"))
    assert "not registered here" in passkey_message(driver)

    # Taking the role away with the CLI ends the console session the browser holds.
    type_into(field(driver, "email"), STAFF_EMAIL)
    password = field(driver, "password")
    type_into(password, STAFF_PASSWORD)
    submit_form_of(driver, password)
    code = field(driver, "code")
    type_into(code, pyotp.TOTP(secret).at(time.time() + 30))
    submit_form_of(driver, code)
    wait_for_path(driver, "/_/users")
    removed = subprocess.run([str(binary), "superuser", "delete", STAFF_EMAIL, "--db", str(db)],
                             capture_output=True, text=True, timeout=60)
    assert removed.returncode == 0, removed.stderr
    driver.get(base + "/_/users")
    assert driver.find_elements(By.NAME, "password"), "the console still opens for the removed superuser"
    assert not driver.find_elements(By.CSS_SELECTOR, "form[action='/_/sign-out']")
