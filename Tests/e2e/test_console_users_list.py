"""Issue 25, item 4: the console's users list as support staff use it, in headless Chromium at 1280 x 800
over 430 seeded users — numbered pages with a total, a sort per column header kept in the URL, the exact
address first, and a bulk disable of three selected users that asks first and audits each one."""

from __future__ import annotations

import json
import subprocess
import urllib.parse
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import create_superuser
from test_browser_flow import browser, wait, wait_for_path, wait_for_text  # noqa: F401 - `browser` is a fixture
from test_console_browser import console_sign_in
from test_console_layout import overflowing_tables, widen_dates

STAFF_EMAIL = "list.lead@example.com"
STAFF_PASSWORD = "staff password 1"
PATTERN = "test+{n}@example.com"
COUNT = 430


def staff_server(binary, tmp_path, start_server, email: str, password: str, seed: int = 0):
    """A server on a new file with one superuser and `seed` verified users `test+N@example.com`."""
    db = tmp_path / "console.sqlite"
    create_superuser(binary, db, email, password)
    if seed:
        seeded = subprocess.run([str(binary), "users", "seed", str(seed), "--pattern", PATTERN, "--password",
                                 "shared password 1", "--verified", "--db", str(db)],
                                capture_output=True, text=True, timeout=120)
        assert seeded.returncode == 0, seeded.stderr
    return start_server(db_path=db)


def row_emails(driver) -> list[str]:
    return [a.get_attribute("title") for a in driver.find_elements(By.CSS_SELECTOR, "tbody a.cx-usercell__email")]


def header(driver, column: str):
    return driver.find_element(By.CSS_SELECTOR, f'thead a[data-column="{column}"]')


def wait_for_sort(driver, column: str, direction: str) -> None:
    """Waits for the list sorted by `column`: its header's `aria-sort` says `direction`."""
    wait(driver).until(lambda d: d.execute_script(
        "const a = document.querySelector(`thead a[data-column=\"${arguments[0]}\"]`);"
        "return a && a.closest('th').getAttribute('aria-sort')", column) == direction)


def query_of(driver) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(driver.current_url).query))


def audit(server, token: str, event: str) -> list[dict]:
    request = urllib.request.Request(server.url + "/_/api/audit?" + urllib.parse.urlencode({"type": event}),
                                     headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())


def test_pages_sort_exact_match_and_bulk_disable(browser, start_server, binary, tmp_path):
    server = staff_server(binary, tmp_path, start_server, STAFF_EMAIL, STAFF_PASSWORD, seed=COUNT)
    token = server.superuser_token()
    driver = browser
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    console_sign_in(driver, server.url, STAFF_EMAIL, STAFF_PASSWORD)

    # Numbered pages and the total; the page is kept in the URL.
    driver.get(server.url + "/_/users")
    wait_for_text(driver, f"1–50 of {COUNT}")
    widest = widen_dates(driver)
    assert overflowing_tables(driver) == [], f"the list scrolls sideways at 1280 x 800 with dates like {widest!r}"
    visible = driver.execute_script(
        "return [...document.querySelectorAll('tbody tr')]"
        ".filter(r => r.getBoundingClientRect().bottom <= window.innerHeight).length")
    assert visible >= 12, f"only {visible} rows fit on screen"
    pages = [a.text for a in driver.find_elements(By.CSS_SELECTOR, ".cx-pager a.cx-pager__page")]
    assert pages[:3] == ["1", "2", "3"] and pages[-1] == "9", f"page links: {pages}"
    driver.find_element(By.CSS_SELECTOR, ".cx-pager a[rel=next]").click()
    wait_for_text(driver, f"51–100 of {COUNT}")
    assert query_of(driver).get("page") == "2"
    assert driver.find_element(By.CSS_SELECTOR, ".cx-pager [aria-current=page]").text == "2"
    driver.find_element(By.CSS_SELECTOR, ".cx-pager a[rel=prev]").click()
    wait_for_text(driver, f"1–50 of {COUNT}")

    # Sort by clicking the Email header, then again for the other direction; both kept in the URL.
    header(driver, "email").click()
    wait_for_sort(driver, "email", "ascending")
    assert query_of(driver).get("sort") == "email"
    emails = row_emails(driver)
    assert emails == sorted(emails) and len(emails) == 50
    driver.find_element(By.CSS_SELECTOR, ".cx-pager a[rel=next]").click()
    wait_for_text(driver, f"51–100 of {COUNT}")
    assert query_of(driver) == {"sort": "email", "page": "2"}
    assert row_emails(driver)[0] > emails[-1], "page 2 continues the sorted order"
    header(driver, "email").click()
    wait_for_sort(driver, "email", "descending")
    assert query_of(driver) == {"sort": "-email"}, "a new sort starts at page 1"
    assert row_emails(driver) == sorted(row_emails(driver), reverse=True)
    header(driver, "created").click()
    wait_for_sort(driver, "created", "descending")
    assert query_of(driver) == {}, "newest first is the list's default"
    header(driver, "lastSignIn").click()
    wait_for_sort(driver, "lastSignIn", "descending")
    assert query_of(driver) == {"sort": "-last-sign-in"}

    # The exact address comes before the ten it is a prefix of.
    driver.get(server.url + "/_/users?q=" + urllib.parse.quote("test+42"))
    wait_for_text(driver, "test+420@example.com")
    found = row_emails(driver)
    assert found[0] == "test+42@example.com", f"exact match not first: {found[:3]}"
    assert len(found) == 11

    # Select all on the page (the enhancement), then three rows for a bulk disable.
    select_all = driver.find_element(By.ID, "select-all")
    select_all.click()
    assert all(box.is_selected() for box in driver.find_elements(By.CSS_SELECTOR, "tbody input[type=checkbox]"))
    select_all.click()
    chosen = found[1:4]
    for email in chosen:
        driver.find_element(By.CSS_SELECTOR, f'tbody input[aria-label="Select {email}"]').click()
    assert driver.find_element(By.CSS_SELECTOR, "[data-bulk-count]").text == "3 selected"
    Select(driver.find_element(By.ID, "bulk-action")).select_by_visible_text("Disable")
    driver.find_element(By.XPATH, "//form[@id='bulk']//button[normalize-space(.)='Review…']").click()
    wait_for_text(driver, "Disable 3 users?")
    assert [li.text.split()[0] for li in driver.find_elements(By.CSS_SELECTOR, ".cx-bulk-list li")] == sorted(chosen)
    assert audit(server, token, "admin.user.disabled") == [], "nothing happens before the confirmation"
    driver.find_element(By.XPATH, "//button[normalize-space(.)='Disable 3 users']").click()
    wait_for_path(driver, "/_/users")
    wait_for_text(driver, "Disabled 3 users.")
    assert query_of(driver).get("q") == "test+42", "back on the same list"
    disabled = {row.find_element(By.CSS_SELECTOR, "a.cx-usercell__email").get_attribute("title")
                for row in driver.find_elements(By.CSS_SELECTOR, "tbody tr.is-disabled")}
    assert disabled == set(chosen)
    events = audit(server, token, "admin.user.disabled")
    assert len(events) == 3, events
    assert all(event["data"].get("via") == "console" for event in events)

    # The server asks again when the confirmation field is missing, whatever the page's script did.
    status = driver.execute_script("""
        const form = new FormData(document.getElementById('bulk'));
        form.set('action', 'enable');
        for (const box of document.querySelectorAll('tbody tr.is-disabled input[type=checkbox]')) form.append('id', box.value);
        return fetch('/_/users/bulk', {method: 'POST', body: new URLSearchParams(form)}).then(r => r.text());""")
    assert "Enable 3 users?" in status
    assert audit(server, token, "admin.user.enabled") == []
