"""A person's way through the hosted account pages, in a real headless Chromium against the real
binary: sign up, verify with the mailed code, see the account, edit the profile, sign out, sign in.

Elements are found by field name, label or form action, never by CSS class (the templates' looks
may change; the field names are the contract). Every wait is an explicit WebDriverWait.
"""

from __future__ import annotations

import base64
import math
import urllib.parse
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

from conftest import PASSWORD, latest_code, read_mailbox, unique_email

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
WAIT = 20  # seconds; sign-up and sign-in each cost one argon2id hash (~80 ms), so this is generous


@pytest.fixture
def browser(shared_chromium, request):
    """A headless Chromium at 1280 x 900 as a fresh one starts: no cookies, cache, emulated screen,
    colour scheme, time zone or virtual authenticator left by an earlier test. After a failed test the
    browser is replaced, so whatever state the failure left cannot reach the next test."""
    driver = shared_chromium.get("driver")
    if driver is None or not reset_browser(driver, shared_chromium["size"]):
        if driver is not None:
            quit_quietly(driver)
        driver = shared_chromium["driver"] = chromium()
        shared_chromium["size"] = driver.get_window_size()
    yield driver
    if getattr(request.node, "rep_call", None) is None or request.node.rep_call.failed:
        quit_quietly(shared_chromium.pop("driver"))


def reset_browser(driver: webdriver.Chrome, size: dict) -> bool:
    """Puts a used browser back to how `chromium()` starts one; False when it cannot (then a new one
    is launched). Cookies are cleared whole: a browser sends 127.0.0.1's cookies to every port."""
    try:
        for handle in driver.window_handles[1:]:
            driver.switch_to.window(handle)
            driver.close()
        driver.switch_to.window(driver.window_handles[0])
        driver.get("about:blank")
        for command, parameters in (
            ("Network.clearBrowserCookies", {}),
            ("Network.clearBrowserCache", {}),
            ("Emulation.clearDeviceMetricsOverride", {}),
            ("Emulation.setEmulatedMedia", {"media": "", "features": []}),
            ("Emulation.setTimezoneOverride", {"timezoneId": ""}),
            ("WebAuthn.disable", {}),  # also removes every virtual authenticator and its credentials
        ):
            driver.execute_cdp_cmd(command, parameters)
        if driver.get_window_size() != size:
            driver.set_window_size(size["width"], size["height"])
        return True
    except WebDriverException:
        return False


def quit_quietly(driver: webdriver.Chrome) -> None:
    try:
        driver.quit()
    except WebDriverException:
        pass


def chromium() -> webdriver.Chrome:
    """A headless Chromium at 1280 x 900; the caller quits it."""
    for path in (CHROMIUM, CHROMEDRIVER):
        if not Path(path).exists():
            pytest.fail(f"{path} is missing: install the Debian packages chromium and chromium-driver "
                        "(`make test-deps`).", pytrace=False)
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                     "--disable-dev-shm-usage", "--lang=en-US"):
        options.add_argument(argument)
    options.binary_location = CHROMIUM  # with an explicit driver too, selenium-manager never downloads
    options.add_experimental_option("prefs", {
        "credentials_enable_service": False,
        "profile.password_manager_enabled": False,
        "profile.password_manager_leak_detection": False,
    })
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    return driver


# -- helpers --------------------------------------------------------------------------------------

def wait(driver, timeout: float = WAIT) -> WebDriverWait:
    return WebDriverWait(driver, timeout)


def field(driver, name: str) -> WebElement:
    """The visible form control named `name`; it must carry a label a screen reader can announce."""
    element = wait(driver).until(EC.visibility_of_element_located((By.NAME, name)))
    label_ok = bool(element.get_attribute("aria-label") or element.get_attribute("aria-labelledby"))
    element_id = element.get_attribute("id")
    if not label_ok and element_id:
        label_ok = bool(driver.find_elements(By.CSS_SELECTOR, f'label[for="{element_id}"]'))
    if not label_ok:
        label_ok = bool(element.find_elements(By.XPATH, "./ancestor::label"))
    assert label_ok, f"the {name!r} field has no label"
    return element


def type_into(element: WebElement, text: str) -> None:
    element.clear()
    element.send_keys(text)


def submit_form_of(driver, element: WebElement) -> None:
    """Clicks the submit button of the form holding `element` and waits for the next page."""
    form = element.find_element(By.XPATH, "./ancestor::form[1]")
    button = form.find_element(By.CSS_SELECTOR, "button[type=submit]")
    wait(driver).until(EC.element_to_be_clickable(button))
    button.click()
    wait(driver).until(lambda d: is_detached(form))
    wait(driver).until(lambda d: d.execute_script("return document.readyState") == "complete")


def is_detached(element: WebElement) -> bool:
    """True once the page holding `element` is gone. Chromium reports a node caught mid-navigation
    either as stale or as "does not belong to the document"; both mean the old page has left."""
    try:
        element.is_enabled()
        return False
    except StaleElementReferenceException:
        return True
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return True
        raise


def path_of(driver) -> str:
    parts = urllib.parse.urlsplit(driver.current_url)
    return parts.path + ("?" + parts.query if parts.query else "")


def wait_for_path(driver, prefix: str) -> str:
    try:
        wait(driver).until(lambda d: path_of(d).startswith(prefix))
    except Exception:
        raise AssertionError(f"expected to land on {prefix}, but the browser is at {path_of(driver)}; page says:\n"
                             f"{page_text(driver)[:1500]}") from None
    return path_of(driver)


def page_text(driver) -> str:
    return driver.find_element(By.TAG_NAME, "body").text


def wait_for_text(driver, text: str) -> None:
    try:
        wait(driver).until(EC.text_to_be_present_in_element((By.TAG_NAME, "body"), text))
    except Exception:
        raise AssertionError(f"{text!r} never appeared on {path_of(driver)}; page says:\n{page_text(driver)[:1500]}") from None


def screenshot(driver, directory: Path, name: str) -> Path:
    """A full-page PNG (the whole document, not only the viewport)."""
    path = directory / f"{name}.png"
    metrics = driver.execute_cdp_cmd("Page.getLayoutMetrics", {})
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    viewport = metrics.get("cssLayoutViewport") or metrics["layoutViewport"]
    width = max(viewport["clientWidth"], math.ceil(size["width"]))
    height = min(max(viewport["clientHeight"], math.ceil(size["height"])), 10_000)
    shot = driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": width, "height": height, "scale": 1},
    })
    path.write_bytes(base64.b64decode(shot["data"]))
    return path


def cookie_value(driver, name: str) -> str | None:
    cookie = driver.get_cookie(name)
    return cookie["value"] if cookie else None


def sign_up_in_browser(driver, base_url: str, email: str, name: str, shots: Path | None = None,
                       lands_on: str = "/auth/verify") -> None:
    """Signs up with a password; lands on the verify page, or `lands_on` (where no verification is asked)."""
    driver.get(base_url + "/auth/sign-up")
    email_input = field(driver, "email")
    type_into(email_input, email)
    type_into(field(driver, "name"), name)
    type_into(field(driver, "password"), PASSWORD)
    assert driver.find_element(By.NAME, "_csrf").get_attribute("value"), "sign-up form has no _csrf value"
    if shots:
        screenshot(driver, shots, "01-sign-up")
    submit_form_of(driver, email_input)
    landed = wait_for_path(driver, lands_on)
    if lands_on != "/auth/verify":
        return
    query = urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query)
    assert query.get("email") == [email], f"verify page lost the email: {landed}"


def sign_up_and_verify_in_browser(driver, base_url: str, email: str, name: str) -> None:
    """Signs up, verifies with the mailed code, and lands signed in on /account."""
    sign_up_in_browser(driver, base_url, email, name)
    code_input = field(driver, "code")
    type_into(code_input, latest_code(base_url, email))
    submit_form_of(driver, code_input)
    wait_for_path(driver, "/account")


# -- tests ----------------------------------------------------------------------------------------

def test_sign_up_verify_profile_sign_out_sign_in(browser, server, screenshots_dir):
    base, driver, shots = server.url, browser, screenshots_dir
    email = unique_email("flow")
    name, new_name = "Ada Lovelace", "Ada King"
    bio = "Writes the first programs."
    custom_key, custom_value = "favourite_engine", "Analytical"

    # 1. Sign up.
    sign_up_in_browser(driver, base, email, name, shots)

    # 2. Verify with the code from the dev mailbox.
    wait_for_text(driver, email)
    code_input = field(driver, "code")
    hidden_email = driver.find_element(By.XPATH, "//form[.//*[@name='code']]//input[@name='email']")
    assert hidden_email.get_attribute("value") == email
    mails = read_mailbox(base, email)
    assert len(mails) == 1, f"expected one verification mail, got {len(mails)}"
    code = latest_code(base, email)
    assert code in mails[0]["text"], "the mail's text does not contain its code"
    type_into(code_input, code)
    screenshot(driver, shots, "02-verify")
    submit_form_of(driver, code_input)

    # 3. Signed in on the account page, name shown.
    wait_for_path(driver, "/account")
    wait_for_text(driver, name)
    assert email in page_text(driver)
    assert cookie_value(driver, "gh_session"), "no gh_session cookie after verifying"
    assert field(driver, "name").get_attribute("value") == name
    screenshot(driver, shots, "03-account")

    # 4. Edit the profile: name, bio and one custom key/value in the empty row.
    name_input = field(driver, "name")
    type_into(name_input, new_name)
    type_into(field(driver, "bio"), bio)
    empty_keys = [e for e in driver.find_elements(By.CSS_SELECTOR, "input[name^='custom_key_']")
                  if not e.get_attribute("value")]
    assert empty_keys, "the profile form has no empty custom_key_N row"
    key_input = empty_keys[-1]
    index = key_input.get_attribute("name").removeprefix("custom_key_")
    type_into(key_input, custom_key)
    type_into(field(driver, f"custom_value_{index}"), custom_value)
    submit_form_of(driver, name_input)
    wait_for_path(driver, "/account?notice=saved")
    wait_for_text(driver, "Profile saved")
    confirmations = [e for e in driver.find_elements(By.XPATH, "//*[@role='status' or @role='alert']")
                     if "Profile saved" in e.text]
    assert len(confirmations) == 1, f"'Profile saved' is announced {len(confirmations)} times, expected once"
    text = page_text(driver)
    assert new_name in text and bio in text, f"saved values not shown:\n{text[:1500]}"
    assert field(driver, "name").get_attribute("value") == new_name
    assert field(driver, "bio").get_attribute("value") == bio
    saved_rows = {e.get_attribute("value"): e.get_attribute("name").removeprefix("custom_key_")
                  for e in driver.find_elements(By.CSS_SELECTOR, "input[name^='custom_key_']")}
    assert custom_key in saved_rows, f"custom key not shown after saving: {sorted(saved_rows)}"
    assert field(driver, f"custom_value_{saved_rows[custom_key]}").get_attribute("value") == custom_value
    screenshot(driver, shots, "04-profile-saved")

    # 5. Sign out (the form posting to /auth/sign-out).
    sign_out = driver.find_element(By.XPATH, "//form[@action='/auth/sign-out']//button[@type='submit']")
    submit_form_of(driver, sign_out)
    wait_for_path(driver, "/auth/sign-in")
    assert not cookie_value(driver, "gh_session"), "gh_session cookie still set after signing out"
    assert not driver.find_elements(By.XPATH, "//form[@action='/auth/sign-out']"), "still shows a sign-out form"
    screenshot(driver, shots, "05-signed-out")
    driver.get(base + "/account")
    wait_for_path(driver, "/auth/sign-in")

    # 6. Sign in again.
    driver.get(base + "/auth/sign-in")
    email_input = field(driver, "email")
    type_into(email_input, email)
    type_into(field(driver, "password"), PASSWORD)
    submit_form_of(driver, email_input)
    wait_for_path(driver, "/account")
    wait_for_text(driver, new_name)
    assert bio in page_text(driver)
    assert cookie_value(driver, "gh_session")
    screenshot(driver, shots, "06-signed-in")


def test_sign_in_with_wrong_password_keeps_email_not_password(browser, server, screenshots_dir):
    base, driver = server.url, browser
    email = unique_email("wrongpw")
    sign_up_and_verify_in_browser(driver, base, email, "Grace Hopper")
    submit_form_of(driver, driver.find_element(By.XPATH, "//form[@action='/auth/sign-out']//button[@type='submit']"))
    wait_for_path(driver, "/auth/sign-in")

    email_input = field(driver, "email")
    type_into(email_input, email)
    type_into(field(driver, "password"), "not the password")
    submit_form_of(driver, email_input)
    assert path_of(driver).startswith("/auth/sign-in"), path_of(driver)
    alert = wait(driver).until(EC.visibility_of_element_located((By.XPATH, "//*[@role='alert']")))
    assert alert.text.strip(), "the sign-in error alert is empty"
    assert field(driver, "email").get_attribute("value") == email, "the typed email was not kept"
    assert field(driver, "password").get_attribute("value") == "", "the password was sent back to the page"
    assert not cookie_value(driver, "gh_session")
    screenshot(driver, screenshots_dir, "sign-in-wrong-password")


def test_wrong_code_shows_error_next_to_field_and_keeps_email(browser, server, screenshots_dir):
    base, driver = server.url, browser
    email = unique_email("wrongcode")
    sign_up_in_browser(driver, base, email, "Alan Turing")
    code = latest_code(base, email)
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"

    code_input = field(driver, "code")
    assert code_input.get_attribute("aria-invalid") in (None, "false")
    type_into(code_input, wrong)
    submit_form_of(driver, code_input)

    assert path_of(driver).startswith("/auth/verify"), f"a wrong code left the verify page: {path_of(driver)}"
    code_input = field(driver, "code")
    assert code_input.get_attribute("aria-invalid") == "true", "the code input is not marked aria-invalid"
    # The message is tied to the input (aria-describedby) and shown right by it.
    described = (code_input.get_attribute("aria-describedby") or "").split()
    messages = [driver.find_element(By.ID, i) for i in described if driver.find_elements(By.ID, i)]
    errors = [m for m in messages if m.is_displayed() and m.text.strip()
              and "6 digits" not in m.text and "expires" not in m.text]
    assert errors, f"no visible error message linked to the code input (aria-describedby={described})"
    message = errors[0]
    gap = message.rect["y"] - (code_input.rect["y"] + code_input.rect["height"])
    assert -5 <= gap <= 120, f"the error message is not next to the code field (gap {gap}px)"
    # The email is kept: shown on the page and in the form's hidden field.
    assert email in page_text(driver)
    hidden_email = driver.find_element(By.XPATH, "//form[.//*[@name='code']]//input[@name='email']")
    assert hidden_email.get_attribute("value") == email
    assert not cookie_value(driver, "gh_session"), "a wrong code signed the browser in"
    screenshot(driver, screenshots_dir, "verify-wrong-code")

    # One wrong try does not burn the code: the right one still works.
    type_into(code_input, code)
    submit_form_of(driver, code_input)
    wait_for_path(driver, "/account")
    wait_for_text(driver, "Alan Turing")


def test_sign_up_on_a_phone(browser, server, screenshots_dir):
    driver = browser
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 375, "height": 812, "deviceScaleFactor": 2, "mobile": True})
    try:
        driver.get(server.url + "/auth/sign-up")
        for name in ("email", "name", "password"):
            element = field(driver, name)
            rect = element.rect
            assert rect["x"] >= 0 and rect["x"] + rect["width"] <= 375 + 1, f"{name} field is off screen: {rect}"
        button = field(driver, "email").find_element(By.XPATH, "./ancestor::form[1]").find_element(
            By.CSS_SELECTOR, "button[type=submit]")
        assert button.is_displayed() and button.rect["x"] + button.rect["width"] <= 375 + 1
        width = driver.execute_script("return document.documentElement.clientWidth")
        scroll = driver.execute_script("return document.documentElement.scrollWidth")
        assert width == 375, f"the page does not lay out at phone width (viewport meta?): {width}px"
        screenshot(driver, screenshots_dir, "sign-up-phone")
        assert scroll <= width, f"the sign-up page scrolls sideways on a 375px phone ({scroll}px wide)"
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
