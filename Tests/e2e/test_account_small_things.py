"""Issue 25, item 8, in headless Chromium: an avatar whose address fails to load falls back to the
initials (no broken-image icon), and the account page's tabs fit a 390 px phone without making the
page scroll sideways."""

from __future__ import annotations

from selenium.webdriver.common.by import By

from conftest import unique_email
from test_browser_flow import (  # noqa: F401 - `browser` is a fixture
    browser, field, screenshot, sign_up_and_verify_in_browser, submit_form_of, type_into, wait_for_path, wait_for_text,
)


def test_a_dead_avatar_shows_initials_and_tabs_fit_a_phone(browser, server, screenshots_dir):
    driver, base = browser, server.url
    email = unique_email("avatar")
    sign_up_and_verify_in_browser(driver, base, email, "Grace Hopper")

    avatar = field(driver, "avatar_url")
    type_into(avatar, "http://127.0.0.1:9/no-such-image.png")
    submit_form_of(driver, avatar)
    wait_for_path(driver, "/account")
    driver.refresh()
    wait_for_text(driver, "Grace Hopper")
    driver.implicitly_wait(0)
    assert driver.find_elements(By.CSS_SELECTOR, "img.avatar__img") == [], "the broken image is still shown"
    initials = driver.find_element(By.CSS_SELECTOR, ".avatar__initials")
    assert initials.is_displayed() and initials.text == "GH"

    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    for path in ("/account", "/account/linked", "/account/sessions", "/account/security"):
        driver.get(base + path)
        # A mobile viewport widens itself to its content, so the page is measured against 390 itself.
        wide = driver.execute_script("return document.documentElement.scrollWidth")
        assert wide <= 390, f"{path} is {wide} px wide on a 390 px phone"
    screenshot(driver, screenshots_dir, "account-security-390")
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
