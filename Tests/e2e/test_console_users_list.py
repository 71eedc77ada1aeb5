"""Issue 25, item 4, and issue 49, item 9: the console's users list where only a browser can tell, in
headless Chromium at 1280 x 800 over 120 seeded users — a dozen rows and every column in view, the
page's script selecting the whole page, then every user the filters match ("Select all 120
matching"), counting what is selected, and its bulk form reaching the review. Paging, sorting, the
exact address first, the review and the bulk act itself are ConsoleUserListTests (over HTTP)."""

from __future__ import annotations

import subprocess

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from conftest import create_superuser
from test_browser_flow import browser, wait_for_text  # noqa: F401 - `browser` is a fixture
from test_console_browser import console_sign_in
from test_console_layout import overflowing_tables, widen_dates

STAFF_EMAIL = "list.lead@example.com"
STAFF_PASSWORD = "staff password 1"
PATTERN = "test+{n}@example.com"
COUNT = 120


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


def test_list_fits_and_its_script_selects_the_page_then_every_match(browser, start_server, binary, tmp_path,
                                                                    screenshots_dir):
    server = staff_server(binary, tmp_path, start_server, STAFF_EMAIL, STAFF_PASSWORD, seed=COUNT)
    driver = browser
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": 1280, "height": 800, "deviceScaleFactor": 1, "mobile": False})
    console_sign_in(driver, server.url, STAFF_EMAIL, STAFF_PASSWORD)
    driver.get(server.url + "/_/users")
    wait_for_text(driver, f"1–50 of {COUNT}")

    # At 1280 x 800 every column fits with the widest dates, and a dozen rows are in view.
    widest = widen_dates(driver)
    assert overflowing_tables(driver) == [], f"the list scrolls sideways at 1280 x 800 with dates like {widest!r}"
    visible = driver.execute_script(
        "return [...document.querySelectorAll('tbody tr')]"
        ".filter(r => r.getBoundingClientRect().bottom <= window.innerHeight).length")
    assert visible >= 12, f"only {visible} rows fit on screen"

    # Rows one by one are counted; "select all" takes the page, then offers every match.
    boxes = driver.find_elements(By.CSS_SELECTOR, "tbody input[type=checkbox]")
    count = driver.find_element(By.CSS_SELECTOR, "[data-bulk-count]")
    matching = driver.find_element(By.CSS_SELECTOR, "[data-select-matching]")
    for box in boxes[1:4]:
        box.click()
    assert count.text == "3 selected" and not matching.is_displayed()
    select_all = driver.find_element(By.ID, "select-all")
    select_all.click()
    assert all(box.is_selected() for box in boxes) and count.text == "50 selected"
    assert matching.text == f"Select all {COUNT} matching"
    matching.click()
    assert count.text == f"All {COUNT} matching selected" and not matching.is_displayed()
    driver.save_screenshot(str(screenshots_dir / "issue49-console-users-select-matching-1280.png"))
    boxes[0].click()  # one row unticked: back to the rows ticked
    assert count.text == "49 selected"
    boxes[0].click()
    matching.click()

    Select(driver.find_element(By.ID, "bulk-action")).select_by_visible_text("Tag")
    driver.find_element(By.ID, "bulk-tag").send_keys("everyone")
    driver.find_element(By.XPATH, "//form[@id='bulk']//button[normalize-space(.)='Review…']").click()
    wait_for_text(driver, f"Tag {COUNT} users “everyone”?")
    assert driver.find_element(By.CSS_SELECTOR, "[data-bulk-more]").text == f"… and {COUNT - 50} more"
