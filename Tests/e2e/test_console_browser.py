"""The staff console in headless Chromium: a superuser seeds test users, finds and edits one, opens
the site as that user, stops, revokes the user's sessions and deletes the batch by its tag."""

from __future__ import annotations


from selenium.webdriver.common.by import By

from conftest import Browserless, create_superuser

from test_browser_flow import (  # noqa: F401 - `browser` is a fixture
    browser, field, screenshot, submit_form_of, type_into, wait_for_path, wait_for_text,
)

STAFF_EMAIL = "staff@example.com"
STAFF_PASSWORD = "staff password 1"


def active_sessions(driver) -> int:
    """How many sessions the console's user page lists as active."""
    return len(driver.find_elements(By.CSS_SELECTOR, "#sec-sessions .cx-status--active"))


def accept_confirmations(driver) -> None:
    """Answers the console's data-confirm prompts with OK."""
    driver.execute_script("window.confirm = function () { return true; };")


def console_sign_in(driver, url: str, email: str, password: str) -> None:
    """Signs a superuser in on the console's sign-in form."""
    driver.get(url + "/_/")
    type_into(field(driver, "email"), email)
    password_field = field(driver, "password")
    type_into(password_field, password)
    submit_form_of(driver, password_field)


def test_console_seed_edit_impersonate_revoke_and_bulk_delete(browser, start_server, binary, tmp_path, screenshots_dir):
    db = tmp_path / "console.sqlite"
    create_superuser(binary, db, STAFF_EMAIL, STAFF_PASSWORD)
    server = start_server(db_path=db)
    driver = browser
    console_sign_in(driver, server.url, STAFF_EMAIL, STAFF_PASSWORD)

    driver.get(server.url + "/_/test-users")
    type_into(field(driver, "count"), "100")
    type_into(driver.find_element(By.ID, "seed-pattern"), "e2e+{n}@example.com")
    type_into(driver.find_element(By.ID, "seed-password"), "shared password 1")
    type_into(driver.find_element(By.ID, "seed-tag"), "e2e")
    driver.find_element(By.ID, "seed-verified").click()
    submit_form_of(driver, driver.find_element(By.ID, "seed-tag"))
    wait_for_text(driver, "Created 100 users tagged e2e")
    screenshot(driver, screenshots_dir, "console-test-users-seeded")

    driver.get(server.url + "/_/users?q=e2e%2B7%40")
    wait_for_text(driver, "e2e+7@example.com")
    driver.find_element(By.LINK_TEXT, "e2e+7@example.com").click()
    wait_for_path(driver, "/_/users/")
    user_page = driver.current_url

    name = driver.find_element(By.ID, "name")
    type_into(name, "Seven Seeded")
    submit_form_of(driver, name)
    wait_for_path(driver, "/_/users/")
    assert driver.find_element(By.ID, "name").get_attribute("value") == "Seven Seeded"
    screenshot(driver, screenshots_dir, "console-user-edited")

    open_as = driver.find_element(By.XPATH, "//button[contains(., 'Open as this user')]")
    open_as.click()
    wait_for_path(driver, "/account")
    wait_for_text(driver, "Stop impersonating")
    wait_for_text(driver, "Seven Seeded")
    screenshot(driver, screenshots_dir, "console-impersonating")
    stop = driver.find_element(By.XPATH, "//button[contains(., 'Stop impersonating')]")
    stop.click()
    wait_for_path(driver, "/_/")

    # The user signs in on a phone of their own; the console lists that session as active.
    phone = Browserless(server.url)
    status, headers, _ = phone.form_post("/auth/sign-in", "/auth/sign-in",
                                         {"email": "e2e+7@example.com", "password": "shared password 1"})
    assert status == 303 and headers["Location"] == "/account", (status, headers["Location"])
    assert phone.get("/account")[0] == 200
    driver.get(user_page)
    assert active_sessions(driver) == 1

    accept_confirmations(driver)
    revoke = driver.find_element(By.XPATH, "//button[contains(., 'Revoke all sessions')]")
    submit_form_of(driver, revoke)
    wait_for_path(driver, "/_/users/")
    assert active_sessions(driver) == 0
    screenshot(driver, screenshots_dir, "console-sessions-revoked")
    status, headers, _ = phone.get("/account")
    assert status == 303 and headers["Location"].startswith("/auth/sign-in"), "a revoked session still opens /account"

    driver.get(server.url + "/_/test-users")
    type_into(driver.find_element(By.ID, "bulk-tag"), "e2e")
    type_into(driver.find_element(By.ID, "bulk-confirm"), "e2e")
    accept_confirmations(driver)
    submit_form_of(driver, driver.find_element(By.ID, "bulk-confirm"))
    wait_for_text(driver, "Deleted 100 users tagged e2e")
    screenshot(driver, screenshots_dir, "console-test-users-deleted")
    driver.get(server.url + "/_/users?q=e2e")
    wait_for_text(driver, "0 users")
