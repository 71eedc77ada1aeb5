"""Issue 25, item 2: the console's tables fit a 1280 x 800 laptop screen. Measured in headless
Chromium with the viewport set to exactly that size: no table scrolls sideways inside its card
(`scrollWidth` vs `clientWidth`), the users list shows at least 12 rows, and a user's sessions keep
their status and Revoke button in view. Long addresses are what used to push them out.

The list's dates are as wide as the clock makes them ("26 Nov 2026, 10:08 PM" is wider than
"6 Nov 2026, 9:08 AM"), so before measuring, every date cell is given the widest text the list's
format can produce, and the table must fit whatever the time of day."""

from __future__ import annotations

import json
import subprocess
import urllib.request

from selenium.webdriver.common.by import By

from conftest import create_superuser
from test_browser_flow import browser, screenshot, wait_for_path, wait_for_text  # noqa: F401 - `browser` is a fixture
from test_console_browser import console_sign_in

STAFF_EMAIL = "support.lead@example-company.com"
STAFF_PASSWORD = "staff password 1"
LONG = "customer.support.test+{n}@example-company.com"
SAFARI = ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.1 Safari/605.1.15")


def overflowing_tables(driver) -> list[list]:
    """[scrollWidth, clientWidth, column widths] of every table region wider than its card."""
    return driver.execute_script(
        "return [...document.querySelectorAll('.cx-table-scroll')].filter(e => e.scrollWidth > e.clientWidth)"
        ".map(e => [e.scrollWidth, e.clientWidth, [...e.querySelectorAll('thead th')]"
        ".map(t => t.innerText + ' ' + Math.round(t.getBoundingClientRect().width)).join(', ')])")


# Every date the users list can show, "28 May 2026, 12:58 PM" and the like: the widest in the page's
# own font goes into every date cell (the width of a month's name and of AM/PM is the font's).
WIDEST_DATES = """
const cells = [...document.querySelectorAll('.cx-table--users td.cx-num')];
const probe = document.createElement('span');
cells[0].appendChild(probe);
let widest = '', most = 0;
for (const month of ['Jan','Feb','Mar','Apr','May','Jun','Jul','Aug','Sep','Oct','Nov','Dec'])
  for (const period of ['AM', 'PM']) {
    probe.textContent = `28 ${month} 2026, 12:58\u202f${period}`;
    const width = probe.getBoundingClientRect().width;
    if (width > most) { most = width; widest = probe.textContent; }
  }
probe.remove();
cells.forEach(cell => { cell.textContent = widest; });
return [cells.length, widest];
"""


def widen_dates(driver) -> str:
    """Gives every date cell of the users list on screen the widest date text; returns that text."""
    cells, widest = driver.execute_script(WIDEST_DATES)
    assert cells >= 2 * 12, f"{cells} date cells: the users list lost its Created / Last sign-in columns"
    return widest


def sign_in_over_insforge(url: str, email: str, password: str) -> None:
    request = urllib.request.Request(
        url + "/api/auth/sessions?client_type=mobile", method="POST",
        data=json.dumps({"email": email, "password": password}).encode(),
        headers={"Content-Type": "application/json", "User-Agent": SAFARI})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200


def test_console_tables_fit_a_1280_by_800_laptop(browser, start_server, binary, tmp_path, screenshots_dir):
    db = tmp_path / "layout.sqlite"
    create_superuser(binary, db, STAFF_EMAIL, STAFF_PASSWORD)
    seeded = subprocess.run([str(binary), "users", "seed", "40", "--pattern", LONG, "--password", "shared password 1",
                             "--verified", "--tag", "laptop", "--db", str(db)], capture_output=True, text=True, timeout=60)
    assert seeded.returncode == 0, seeded.stderr
    server = start_server(db_path=db)
    person = LONG.format(n=7)
    for _ in range(3):
        sign_in_over_insforge(server.url, person, "shared password 1")

    driver = browser
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    console_sign_in(driver, server.url, STAFF_EMAIL, STAFF_PASSWORD)

    driver.get(server.url + "/_/users")
    wait_for_text(driver, "customer.support.test+40@")
    widest = widen_dates(driver)
    assert overflowing_tables(driver) == [], f"with every date as wide as {widest!r}"
    visible = driver.execute_script(
        "return [...document.querySelectorAll('tbody tr')]"
        ".filter(r => r.getBoundingClientRect().bottom <= window.innerHeight).length")
    assert visible >= 12, f"{visible} rows of the users list fit on screen"
    email = driver.find_element(By.CSS_SELECTOR, "a.cx-usercell__email")
    assert email.get_attribute("title") == LONG.format(n=40), "a cut address keeps its whole text in a tooltip"
    screenshot(driver, screenshots_dir, "console-users-1280x800")

    driver.get(server.url + "/_/users?q=" + urllib.request.quote(person))
    driver.find_element(By.CSS_SELECTOR, "a.cx-usercell__email").click()
    wait_for_path(driver, "/_/users/")
    assert overflowing_tables(driver) == []
    revoke = driver.find_elements(By.XPATH, "//section[@id='sec-sessions']//button[starts-with(normalize-space(.), 'Revoke') "
                                            "and not(contains(., 'all'))]")
    assert len(revoke) == 3
    region = driver.find_element(By.CSS_SELECTOR, "#sec-sessions .cx-table-scroll").rect
    for button in revoke:
        assert button.rect["x"] + button.rect["width"] <= region["x"] + region["width"], "a Revoke button is cut off"
    screenshot(driver, screenshots_dir, "console-user-sessions-1280x800")

    driver.get(server.url + "/_/audit")
    wait_for_text(driver, "Signed in")
    assert overflowing_tables(driver) == []
    screenshot(driver, screenshots_dir, "console-audit-1280x800")
