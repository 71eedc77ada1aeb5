"""Issue 25, item 7: one password rule with a strength estimator (zxcvbn). The weakest passwords are
refused on the sign-up page (with a live meter that says so before submitting), through PocketBase's
`POST /api/collections/users/records` and through InsForge's `POST /api/auth/users`, each in its own
error shape; a passphrase passes everywhere."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import unique_email
from test_browser_flow import (  # noqa: F401 - `browser` is a fixture
    browser, field, screenshot, submit_form_of, type_into, wait_for_path, wait_for_text,
)

WEAK = ["password", "12345678"]


def post_json(url: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read() or b"{}")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"{}")


@pytest.mark.parametrize("password", WEAK)
def test_the_apis_refuse_weak_passwords_in_their_own_shapes(server, password):
    email = unique_email("weak")
    status, body = post_json(server.url + "/api/collections/users/records",
                             {"email": email, "password": password, "passwordConfirm": password})
    assert status == 400, body
    assert body["data"]["password"]["code"].startswith("validation_"), body
    assert "guess" in body["data"]["password"]["message"], body

    status, body = post_json(server.url + "/api/auth/users", {"email": email, "password": password})
    assert status == 400, body
    assert body["error"] == "INVALID_INPUT" and "guess" in body["message"], body

    # Nothing was half-made: the address is still free for a good password, through either API.
    status, body = post_json(server.url + "/api/auth/users", {"email": email, "password": "quiet otter meadow 7"})
    assert status == 200, body


def test_the_meter_asks_the_same_rule(server):
    status, weak = post_json(server.url + "/auth/password-strength", {"password": "password"})
    assert status == 200 and weak["acceptable"] is False and weak["score"] == 0
    assert weak["message"] == "This is a common password: choose one that is harder to guess."
    _, strong = post_json(server.url + "/auth/password-strength", {"password": "correct horse battery staple"})
    assert strong == {"score": 4, "label": "Very strong", "acceptable": True}
    # The person's own address counts against a password built from it.
    _, own = post_json(server.url + "/auth/password-strength",
                       {"password": "gracehopper1906", "email": "grace.hopper1906@navy.example"})
    assert own["acceptable"] is False, own
    status, _ = post_json(server.url + "/auth/password-strength", {"nope": 1})
    assert status == 400


def test_the_sign_up_page_warns_while_typing_and_refuses_on_submit(browser, server, screenshots_dir):
    driver, base = browser, server.url
    email = unique_email("meter")
    driver.get(base + "/auth/sign-up")
    type_into(field(driver, "email"), email)
    password = field(driver, "password")
    type_into(password, "12345678")
    meter_text = driver.find_element(By.CSS_SELECTOR, "[data-strength-for=password] [data-strength-text]")
    WebDriverWait(driver, 10).until(lambda d: "guess" in meter_text.text)
    screenshot(driver, screenshots_dir, "sign-up-weak-password")
    submit_form_of(driver, password)
    wait_for_text(driver, "This is a common password")
    # The address typed is kept; the password is not echoed back.
    assert field(driver, "email").get_attribute("value") == email
    assert field(driver, "password").get_attribute("value") == ""

    password = field(driver, "password")
    type_into(password, "a brand new passphrase")
    meter_text = driver.find_element(By.CSS_SELECTOR, "[data-strength-for=password] [data-strength-text]")
    WebDriverWait(driver, 10).until(lambda d: meter_text.text == "Strength: Very strong")
    submit_form_of(driver, password)
    wait_for_path(driver, "/auth/verify")


def test_the_verdict_appearing_moves_nothing_below_the_field(browser, server):
    """The meter's place is kept from the start: a verdict arriving a moment after typing stops must
    not push the submit button down under a pointer about to click it (a click landing where the
    button was is lost)."""
    driver = browser
    driver.get(server.url + "/auth/sign-up")
    button = driver.find_element(By.CSS_SELECTOR, "form button[type=submit]")
    before = button.rect["y"]
    password = field(driver, "password")
    meter_text = driver.find_element(By.CSS_SELECTOR, "[data-strength-for=password] [data-strength-text]")
    for typed, verdict in (("12345678", "guess"), ("a brand new passphrase", "Strength: Very strong")):
        type_into(password, typed)
        WebDriverWait(driver, 10).until(lambda d: verdict in meter_text.text)
        assert button.rect["y"] == before, f"the button moved when {meter_text.text!r} appeared"
