"""Issue 25, item 5: the dev mailbox is a console page — the console's sidebar, new mail shown as it
arrives (server-sent events, no reload), a recipient filter kept in the URL, and a clear that asks
first and is audited."""

from __future__ import annotations

import json
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By

from test_browser_flow import browser, wait, wait_for_text  # noqa: F401 - `browser` is a fixture
from test_console_browser import console_sign_in
from test_console_users_list import staff_server

STAFF_EMAIL = "mail.lead@example.com"
STAFF_PASSWORD = "staff password 1"


def sign_up(url: str, email: str) -> None:
    """A sign-up through the InsForge API, in a request of its own: it mails a verification code."""
    request = urllib.request.Request(
        url + "/api/auth/users", method="POST", headers={"Content-Type": "application/json"},
        data=json.dumps({"email": email, "password": "quiet-otter-123"}).encode())
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status in (200, 201)


def mail_recipients(driver) -> list[str]:
    return [e.text for e in driver.find_elements(By.CSS_SELECTOR, "article.mail .mail__to .break")]


def test_mailbox_is_live_filtered_and_cleared(browser, start_server, binary, tmp_path):
    server = staff_server(binary, tmp_path, start_server, STAFF_EMAIL, STAFF_PASSWORD)
    driver = browser
    console_sign_in(driver, server.url, STAFF_EMAIL, STAFF_PASSWORD)

    driver.get(server.url + "/_/mailbox")
    wait_for_text(driver, "No mail yet")
    current = driver.find_element(By.CSS_SELECTOR, ".cx-nav a[aria-current=page]")
    assert current.text == "Mailbox", "the mailbox sits in the console's sidebar"
    driver.execute_script("window.notReloaded = true")

    sign_up(server.url, "ada@example.com")
    wait(driver).until(lambda d: "ada@example.com" in mail_recipients(d))
    assert driver.execute_script("return window.notReloaded === true"), "the page reloaded"
    code = driver.find_element(By.CSS_SELECTOR, "article.mail code.otp").text
    assert len(code) == 6 and code.isdigit()
    assert not driver.find_element(By.CSS_SELECTOR, "[data-mailbox-empty]").is_displayed()

    # Filter by address: the filter is in the URL and the live feed follows it.
    driver.find_element(By.ID, "to").send_keys("grace@example.com")
    driver.find_element(By.XPATH, "//button[normalize-space(.)='Filter']").click()
    wait_for_text(driver, "Nothing has been sent to")
    assert urllib.parse.parse_qs(urllib.parse.urlsplit(driver.current_url).query) == {"to": ["grace@example.com"]}
    driver.execute_script("window.notReloaded = true")
    sign_up(server.url, "alan@example.com")
    sign_up(server.url, "grace@example.com")
    wait(driver).until(lambda d: "grace@example.com" in mail_recipients(d))
    assert mail_recipients(driver) == ["grace@example.com"]
    assert driver.execute_script("return window.notReloaded === true")

    # Clear: the server asks for the confirmation box even when the browser's check is bypassed.
    driver.get(server.url + "/_/mailbox")
    wait(driver).until(lambda d: len(mail_recipients(d)) == 3)
    box = driver.find_element(By.NAME, "confirm")
    driver.execute_script("arguments[0].removeAttribute('required')", box)
    driver.find_element(By.XPATH, "//button[normalize-space(.)='Clear mailbox']").click()
    wait_for_text(driver, "to confirm")
    assert len(mail_recipients(driver)) == 3, "nothing is deleted without the confirmation"
    driver.find_element(By.NAME, "confirm").click()
    driver.find_element(By.XPATH, "//button[normalize-space(.)='Clear mailbox']").click()
    wait_for_text(driver, "Deleted 3 messages.")
    assert mail_recipients(driver) == []
    token = server.superuser_token()
    request = urllib.request.Request(server.url + "/_/api/audit?type=mailbox.cleared",
                                     headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=10) as response:
        events = json.loads(response.read())
    assert len(events) == 1 and events[0]["data"]["count"] == 3, events
