"""Sign-in and linking through Gatehouse's built-in test provider (`/_/test-idp/…`), in a real
headless Chromium against the real binary. The provider is configured through the admin API
with a superuser's token. Screenshots go to artifacts/screenshots/.
"""

from __future__ import annotations

import json
import urllib.request

from selenium.webdriver.common.by import By

from conftest import unique_email
from test_browser_flow import (  # noqa: F401 - `browser` is a fixture
    browser, field, page_text, screenshot, type_into, wait, wait_for_path, wait_for_text,
)
from selenium.webdriver.support import expected_conditions as EC

PASSWORD = "correct horse battery staple"


def configure_test_provider(server, name: str = "acme") -> None:
    body = json.dumps({"name": name, "type": "oidc", "mode": "test", "displayName": "Acme", "clientId": "acme-client"}).encode()
    request = urllib.request.Request(server.url + "/_/api/providers", data=body, method="POST",
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer " + server.superuser_token()})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 201, response.read()


def click(driver, selector: str) -> None:
    element = wait(driver).until(EC.element_to_be_clickable((By.CSS_SELECTOR, selector)))
    element.click()
    wait(driver).until(lambda d: d.execute_script("return document.readyState") == "complete")


def test_sign_in_with_the_test_provider_creates_a_linked_account(browser, start_server, screenshots_dir):
    server = start_server(verification="none")
    base, driver, shots = server.url, browser, screenshots_dir
    configure_test_provider(server)

    driver.get(base + "/auth/sign-in")
    wait_for_text(driver, "Continue with Acme (test)")
    screenshot(driver, shots, "oauth-01-sign-in-with-provider-button")
    click(driver, 'a[data-provider="acme"]')
    wait_for_path(driver, "/_/test-idp/acme/authorize")
    wait_for_text(driver, "Alex Tester")
    screenshot(driver, shots, "oauth-02-test-provider-account-chooser")

    click(driver, 'button[data-fixed="0"]')
    wait_for_path(driver, "/account")
    wait_for_text(driver, "alex@test.gatehouse.local")
    screenshot(driver, shots, "oauth-03-signed-in-with-test-provider")

    driver.get(base + "/account/linked")
    wait_for_text(driver, "Connected")
    assert "test-alex" in page_text(driver)
    screenshot(driver, shots, "oauth-04-linked-accounts")


def test_link_and_unlink_the_test_provider_from_the_account_page(browser, start_server, screenshots_dir):
    server = start_server(verification="none")
    base, driver, shots = server.url, browser, screenshots_dir
    configure_test_provider(server)
    email = unique_email("linker")

    driver.get(base + "/auth/sign-up")
    type_into(field(driver, "email"), email)
    type_into(field(driver, "password"), PASSWORD)
    field(driver, "password").submit()
    wait_for_path(driver, "/account")

    driver.get(base + "/account/linked")
    wait_for_text(driver, "Not connected")
    click(driver, 'a[data-link="acme"]')
    wait_for_path(driver, "/_/test-idp/acme/authorize")
    type_into(field(driver, "email"), "someone-else@test.gatehouse.local")
    type_into(field(driver, "name"), "Linked Person")
    type_into(field(driver, "subject"), "linked-subject-1")
    screenshot(driver, shots, "oauth-05-test-provider-add-account")
    click(driver, "button[data-add]")
    wait_for_path(driver, "/account/linked")
    wait_for_text(driver, "linked to your account")
    assert "linked-subject-1" in page_text(driver)
    screenshot(driver, shots, "oauth-06-provider-linked")

    click(driver, 'button[data-unlink="acme"]')
    wait_for_text(driver, "unlinked")
    assert "linked-subject-1" not in page_text(driver)
    screenshot(driver, shots, "oauth-07-provider-unlinked")
