"""Issue 49: what a person and support staff meet daily, in headless Chromium at 1280 and 390 px,
light and dark where it is about layout. A spent magic link offers a new one; the two-step section
never speaks of a password to an account without one, and deleting a passkey or signing out
everywhere asks first; an app's flow is the app's (long names wrap in the card, its own footer, no
dev mailbox link); the console keeps addresses whole where it can (and on focus where it cuts them),
draws the chart's days in the viewer's zone, and works on a phone; an impersonation's banner says
why (the reason and ticket staff typed) and the time left, its header Sign out returns to the
console, and the user's page folds ended sessions.

One server and one browser serve the whole module: starting them is most of an e2e test's cost."""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime
from zoneinfo import ZoneInfo

import pyotp
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import GatehouseServer, create_superuser, unique_email
from test_browser_flow import (chromium, cookie_value, field, screenshot, sign_up_in_browser, submit_form_of, type_into,
                               wait, wait_for_path, wait_for_text)
from test_console_browser import console_sign_in
from test_hosted_app_page import mailed_link
from test_passkeys_browser import add_authenticator

STAFF_EMAIL = "support.lead.on.call@example-company-subsidiary.com"
STAFF_PASSWORD = "staff password 1"
CALLBACK = "http://127.0.0.1:9/notes/callback"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
LONG_EMAIL = "customer.support.escalations+long-address-4821@example-company-subsidiary.com"
SEEDED = "customer.support.escalations+{n}@example-company-subsidiary.com"
SEEDED_PASSWORD = "shared password 1"
ZONE = "Pacific/Kiritimati"  # UTC+14: its days are not UTC's


@pytest.fixture(scope="module")
def site(binary, tmp_path_factory):
    """One Gatehouse for the module (no address verification, so sign-up signs in), with a
    superuser whose address is as long as real ones get."""
    db = tmp_path_factory.mktemp("support") / "support.sqlite"
    create_superuser(binary, db, STAFF_EMAIL, STAFF_PASSWORD)
    seeded = subprocess.run([str(binary), "users", "seed", "30", "--pattern", SEEDED, "--password", SEEDED_PASSWORD,
                             "--verified", "--tag", "support", "--db", str(db)], capture_output=True, text=True, timeout=60)
    assert seeded.returncode == 0, seeded.stderr
    server = GatehouseServer(binary, db, verification="none").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def admin(site) -> str:
    """A bearer token for the admin JSON API."""
    return site.superuser_token(STAFF_EMAIL, STAFF_PASSWORD)


@pytest.fixture(scope="module")
def chrome():
    driver = chromium()
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def driver(chrome, site):
    """The module's browser, signed out, at 1280 px in the light scheme."""
    chrome.get(base_of(site) + "/auth/sign-in")
    chrome.delete_all_cookies()
    viewport(chrome, 1280)
    return chrome


def base_of(server) -> str:
    """The server by host name, not IP address: passkeys need one (the relying party id)."""
    return server.url.replace("127.0.0.1", "localhost")


def viewport(driver, width: int, dark: bool = False) -> None:
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                           {"width": width, "height": 800, "deviceScaleFactor": 1, "mobile": width < 600})
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})


def scrolls_sideways(driver, width: int) -> int:
    """How many CSS pixels the page is wider than a screen `width` wide (0 when it fits). A phone
    widens its layout to fit the page, so the screen's width is the measure, not `innerWidth`."""
    return driver.execute_script("return Math.max(document.documentElement.scrollWidth, "
                                 "...[...document.body.querySelectorAll('*')].map(e => e.getBoundingClientRect().right)"
                                 ") - arguments[0]", width)


def heading(driver) -> str:
    return driver.find_element(By.TAG_NAME, "h1").text


def sign_up(driver, base: str, email: str) -> None:
    """A password account, signed in in this browser."""
    sign_up_in_browser(driver, base, email, "Sam Support", lands_on="/account")


def ask_for_link(driver, email: str) -> None:
    """Types the address on the page shown and asks for a sign-in link by mail."""
    type_into(field(driver, "email"), email)
    driver.find_element(By.XPATH, "//button[normalize-space(.)='Email me a sign-in link' "
                                  "or normalize-space(.)='Email me a new link']").click()
    wait_for_text(driver, "Check your email")


def test_spent_magic_link_says_so_and_emails_a_new_one(driver, site, screenshots_dir):
    base, first, second = base_of(site), SEEDED.format(n=1), SEEDED.format(n=2)
    driver.get(base + "/auth/sign-in")
    ask_for_link(driver, first)
    link = mailed_link(base, first).replace("127.0.0.1", "localhost")
    driver.get(link)
    wait_for_path(driver, "/account")
    driver.delete_all_cookies()

    for width, dark in ((1280, False), (390, True)):
        viewport(driver, width, dark)
        driver.get(link)
        assert heading(driver) == "This sign-in link can't be used"
        assert "was already used" in driver.find_element(By.TAG_NAME, "main").text
        assert scrolls_sideways(driver, width) <= 0
        screenshot(driver, screenshots_dir, f"issue49-magic-link-spent-{width}{'-dark' if dark else ''}")

    # The way forward is on the page: a new link, which signs this browser in.
    ask_for_link(driver, second)
    driver.get(mailed_link(base, second).replace("127.0.0.1", "localhost"))
    wait_for_path(driver, "/account")
    assert second in driver.find_element(By.TAG_NAME, "body").text


def test_passkey_only_account_hears_no_password_and_is_asked_before_losing_a_passkey_or_sessions(
        driver, site, screenshots_dir):
    base, email = base_of(site), unique_email("keyonly")
    authenticator = add_authenticator(driver)
    try:
        driver.get(base + "/auth/sign-up")
        button = wait(driver).until(EC.element_to_be_clickable(
            (By.CSS_SELECTOR, "[data-passkey-sign-up] [data-passkey-button]")))
        type_into(field(driver, "name"), "Pat Keyonly")
        type_into(field(driver, "email"), email)
        button.click()
        wait_for_path(driver, "/account")

        driver.get(base + "/account/security")
        section = driver.find_element(By.CSS_SELECTOR, "[data-totp-section]")
        assert "password" not in section.text.lower(), section.text
        submit_form_of(driver, driver.find_element(By.CSS_SELECTOR, "button[data-totp-begin]"))
        secret = driver.find_element(By.CSS_SELECTOR, "[data-totp-secret]").get_attribute("data-totp-secret")
        code = field(driver, "code")
        type_into(code, pyotp.TOTP(secret).now())
        submit_form_of(driver, code)
        saved = driver.find_element(By.CSS_SELECTOR, "[data-totp-section]").text
        assert "Save these recovery codes" in saved and "password" not in saved.lower(), saved
        driver.find_element(By.CSS_SELECTOR, "a[data-codes-saved]").click()
        wait_for_path(driver, "/account/security?notice=totp-on")

        # On: each change is proved with a code from the app, and a wrong one is called a code.
        wrong = field(driver, "password")
        assert driver.find_element(By.CSS_SELECTOR, "label[for=codes_password]").text.startswith("Current code from your app")
        type_into(wrong, "000000")
        submit_form_of(driver, wrong)
        section = driver.find_element(By.CSS_SELECTOR, "[data-totp-section]")
        assert "That code isn't right." in section.text
        assert "password" not in section.text.lower(), section.text
        screenshot(driver, screenshots_dir, "issue49-totp-without-password-1280")

        # Deleting the passkey asks first; "Cancel" keeps it.
        driver.find_element(By.CSS_SELECTOR, "[data-passkey-delete]").click()
        alert = wait(driver).until(EC.alert_is_present())
        assert alert.text.startswith("Delete the passkey "), alert.text
        alert.dismiss()
        assert driver.find_elements(By.CSS_SELECTOR, "[data-passkey-list] [data-passkey]")

        # So does "Sign out everywhere".
        driver.get(base + "/account/sessions")
        driver.find_element(By.CSS_SELECTOR, "button[data-sign-out-all]").click()
        alert = wait(driver).until(EC.alert_is_present())
        assert alert.text.startswith("Sign out everywhere"), alert.text
        alert.dismiss()
        assert driver.current_url.endswith("/account/sessions") and cookie_value(driver, "gh_session")
    finally:
        driver.execute_cdp_cmd("WebAuthn.removeVirtualAuthenticator", {"authenticatorId": authenticator})


def register_app(site, admin: str) -> None:
    """The app "Notes" with terms and privacy links, through the admin API."""
    request = urllib.request.Request(
        site.url + "/_/api/apps", method="POST",
        data=json.dumps({"id": "notes", "name": "Notes", "callbackURLs": [CALLBACK],
                         "termsURL": "https://notes.example/terms", "privacyURL": "https://notes.example/privacy"}).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + admin})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 201


def add_provider(site, admin: str) -> None:
    """A test-mode sign-in provider with a long name, through the admin API."""
    request = urllib.request.Request(
        site.url + "/_/api/providers", method="POST",
        data=json.dumps({"name": "acme-directory", "type": "oidc", "mode": "test", "displayName": "Acme Enterprise Directory",
                         "clientId": "acme-client"}).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + admin})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 201


def footer(driver):
    return driver.find_element(By.CSS_SELECTOR, "footer.site-footer")


def test_app_flow_is_the_apps_long_names_wrap_the_dev_mailbox_is_the_consoles_and_linked_fits_a_phone(
        driver, site, admin, screenshots_dir):
    base = base_of(site)
    register_app(site, admin)
    app_page = base + "/auth/sign-in?" + urllib.parse.urlencode(
        {"redirect": CALLBACK, "client_type": "web", "code_challenge": CHALLENGE, "code_challenge_method": "S256"})

    # Signed out, every page of the app's flow ends in the app's footer, not Gatehouse's.
    driver.get(app_page)
    driver.find_element(By.LINK_TEXT, "Forgot password?").click()
    wait_for_path(driver, "/auth/forgot-password")
    assert [a.text for a in footer(driver).find_elements(By.TAG_NAME, "a")] == ["Terms", "Privacy"]
    assert "Gatehouse" not in footer(driver).text
    # The code page leads with the app's logo alone: no generic mail icon stacked under it.
    driver.get(app_page)
    driver.find_element(By.ID, "email").send_keys("someone@example.com")
    driver.find_element(By.CSS_SELECTOR, "button[data-method='email-code']").click()
    wait_for_path(driver, "/auth/sign-in/code")
    assert driver.find_element(By.CSS_SELECTOR, ".card .app-logo").is_displayed()
    assert not [icon for icon in driver.find_elements(By.CSS_SELECTOR, ".card .card__icon") if icon.is_displayed()]
    screenshot(driver, screenshots_dir, "app-flow-code-page")

    add_provider(site, admin)
    sign_up(driver, base, LONG_EMAIL)
    for width, dark in ((1280, False), (390, False), (390, True)):
        viewport(driver, width, dark)
        driver.get(app_page)
        button = driver.find_element(By.CSS_SELECTOR, "button[data-continue-as]")
        assert button.text.replace("\n", "") == f"Continue as {LONG_EMAIL}"
        card = driver.find_element(By.CSS_SELECTOR, ".card").rect
        assert button.rect["x"] + button.rect["width"] <= card["x"] + card["width"], "the button leaves the card"
        assert scrolls_sideways(driver, width) <= 0
        assert driver.find_element(By.LINK_TEXT, "Terms").get_attribute("href") == "https://notes.example/terms"
        assert not driver.find_elements(By.CSS_SELECTOR, "a[href='/_/mailbox']")
        screenshot(driver, screenshots_dir, f"issue49-app-continue-as-{width}{'-dark' if dark else ''}")
        if width == 390:  # a person's linked accounts fit a phone too
            driver.get(base + "/account/linked")
            assert driver.find_element(By.CSS_SELECTOR, "a[data-link='acme-directory']").is_displayed()
            assert scrolls_sideways(driver, width) <= 0
            screenshot(driver, screenshots_dir, f"issue49-account-linked-390{'-dark' if dark else ''}")

    # Gatehouse's own pages carry no dev mailbox link either; the console does.
    driver.delete_all_cookies()
    driver.get(base + "/auth/sign-in")
    assert footer(driver).text == "Gatehouse · local auth server"
    assert not driver.find_elements(By.CSS_SELECTOR, "a[href='/_/mailbox']")
    console_sign_in(driver, base, STAFF_EMAIL, STAFF_PASSWORD)
    wait_for_path(driver, "/_/users")
    assert driver.find_elements(By.CSS_SELECTOR, "a[href='/_/mailbox']")


def sign_in_over_insforge(url: str, email: str, password: str) -> None:
    """A sign-in through the InsForge API (a failed one too): the audit's and the chart's data."""
    request = urllib.request.Request(url + "/api/auth/sessions?client_type=mobile", method="POST",
                                     data=json.dumps({"email": email, "password": password}).encode(),
                                     headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request, timeout=10).close()
    except urllib.error.HTTPError as refused:
        assert password != SEEDED_PASSWORD, refused


def whole(driver, element) -> bool:
    """True when no part of the element's text is cut off."""
    return driver.execute_script("return arguments[0].scrollWidth <= arguments[0].clientWidth", element)


def overlapping(driver, selectors: list[str]) -> list[str]:
    """Pairs of the header's visible parts whose boxes overlap."""
    return driver.execute_script("""
        const boxes = arguments[0].map(s => [s, document.querySelector(s)]).filter(([, e]) => e && e.offsetParent)
          .map(([s, e]) => [s, e.getBoundingClientRect()]);
        const found = [];
        for (const [i, [a, p]] of boxes.entries()) for (const [b, q] of boxes.slice(i + 1))
          if (p.left < q.right && q.left < p.right && p.top < q.bottom && q.top < p.bottom) found.push(a + ' / ' + b);
        return found;""", selectors)


CHART = """
const days = document.querySelector('svg .chart-days');
const boxes = sel => [...document.querySelectorAll('.cx-chart__svg svg ' + sel)].map(e => e.getBBox());
const labels = [...document.querySelectorAll('.cx-chart__svg svg .chart-label')];
const bars = boxes('rect');
const hits = labels.filter(l => { const a = l.getBBox(); return bars.some(b =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height); }).map(l => l.textContent);
return {zone: days.getAttribute('data-zone'), start: Number(days.dataset.start), hour: Number(days.dataset.hour),
        days: [...days.querySelectorAll('text')].map(t => [t.textContent, Number(t.getAttribute('x'))]), bars: bars.length, hits};
"""


def test_console_addresses_whole_at_1280_and_usable_on_a_phone(driver, site, screenshots_dir):
    """Item 8 at 1280 and item 6 at 390, with item 1's back-off as staff see it: twelve wrong
    passwords from this machine put one on an account (finding and lifting it: ConsoleLockoutTests)."""
    base, person, locked = base_of(site), SEEDED.format(n=7), SEEDED.format(n=11)
    for password in ("wrong password 1", SEEDED_PASSWORD, SEEDED_PASSWORD):
        sign_in_over_insforge(site.url, person, password)
    for attempt in range(12):
        sign_in_over_insforge(site.url, locked, f"wrong password {attempt}")
    driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ZONE})
    try:
        console_sign_in(driver, base, STAFF_EMAIL, STAFF_PASSWORD)
        wait_for_path(driver, "/_/users")

        # 1280: the sidebar's staff address whole; a list's cut address whole on hover (its title),
        # to a screen reader (its name) and under the keyboard's focus.
        staff = driver.find_element(By.CSS_SELECTOR, ".cx-account__email")
        assert STAFF_EMAIL in staff.text.replace("\n", "") and whole(driver, staff)
        cut = driver.find_element(By.CSS_SELECTOR, "a.cx-usercell__email")
        full = cut.get_attribute("textContent")
        assert cut.get_attribute("title") == full and cut.accessible_name == full and not whole(driver, cut)
        driver.execute_script("arguments[0].focus()", cut)
        assert whole(driver, cut), "a focused address is still cut"
        screenshot(driver, screenshots_dir, "issue49-console-users-1280")

        driver.get(base + "/_/audit")
        for link in driver.find_elements(By.CSS_SELECTOR, ".cx-table--audit .cx-person > a"):
            text = link.get_attribute("textContent")
            assert link.get_attribute("title") == text and link.accessible_name == text
        # The chart's days are the viewer's (UTC+14 here), and no label lies on a bar.
        chart = driver.execute_script(CHART)
        assert chart["zone"] == ZONE and chart["bars"] >= 2 and not chart["hits"], chart
        for label, x in chart["days"]:
            day = datetime.fromtimestamp(chart["start"] + x / chart["hour"] * 3600, ZoneInfo(ZONE))
            assert label == f"{day:%a} {day.day}", chart
        screenshot(driver, screenshots_dir, "issue49-console-audit-1280")

        # The account under "Locked now", its back-off on its page: the screen as staff see it
        # (docs/console-lockout.png), not the whole page.
        driver.get(base + "/_/users?locked=yes")
        assert [a.get_attribute("title") for a in driver.find_elements(By.CSS_SELECTOR, "a.cx-usercell__email")] == [locked]
        driver.find_element(By.CSS_SELECTOR, "a.cx-usercell__email").click()
        wait_for_path(driver, "/_/users/")
        locked_page = driver.current_url
        row = driver.find_element(By.CSS_SELECTOR, "#lockouts .cx-lockout")
        assert "12 failed tries" in row.text and "until" in row.text, row.text
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
        driver.save_screenshot(str(screenshots_dir / "issue49-console-lockout-1280.png"))

        # 390: the header's parts apart, every section in reach, a user's address whole.
        for dark in (False, True):
            viewport(driver, 390, dark)
            driver.get(base + "/_/users")
            assert not overlapping(driver, [".cx-brand", ".cx-account__email", ".cx-account__link", ".cx-account__form",
                                            ".cx-nav"])
            for link in driver.find_elements(By.CSS_SELECTOR, ".cx-nav__link"):
                assert 0 <= link.rect["x"] and link.rect["x"] + link.rect["width"] <= 390, link.text
            card = driver.find_element(By.CSS_SELECTOR, "a.cx-usercell__email")
            assert whole(driver, card) and card.rect["height"] < 3 * 24, "an address over more than two lines"
            assert scrolls_sideways(driver, 390) <= 0
            driver.save_screenshot(str(screenshots_dir / f"issue49-console-users-390{'-dark' if dark else ''}.png"))
        # The back-off's row and its Unlock fit the phone; the section links scroll in their own strip.
        driver.get(locked_page)
        row = driver.find_element(By.CSS_SELECTOR, "#lockouts .cx-lockout")
        assert driver.execute_script("return document.documentElement.scrollWidth") <= 390
        assert row.rect["x"] + row.rect["width"] <= 390, row.rect
        assert row.find_element(By.XPATH, ".//button[normalize-space(.)='Unlock']").is_displayed()
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", row)
        screenshot(driver, screenshots_dir, "issue49-console-lockout-390-dark")
    finally:
        driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": ""})


def test_impersonation_banner_says_time_left_hides_what_it_cannot_do_and_sign_out_returns(driver, site, screenshots_dir):
    base, person = base_of(site), SEEDED.format(n=3)
    console_sign_in(driver, base, STAFF_EMAIL, STAFF_PASSWORD)
    driver.get(base + "/_/users?q=" + urllib.parse.quote(person))
    driver.find_element(By.CSS_SELECTOR, "a.cx-usercell__email").click()
    wait_for_path(driver, "/_/users/")
    type_into(field(driver, "reason"), "Ticket 4821: can't see the invoices page")
    type_into(field(driver, "ticket"), "https://support.example/tickets/4821")
    driver.find_element(By.XPATH, "//button[contains(., 'Open as this user')]").click()
    wait_for_path(driver, "/account")

    left = driver.find_element(By.CSS_SELECTOR, ".impersonation [data-ends-at]").text
    assert left.startswith("15 min left (ends "), left
    reason = driver.find_element(By.CSS_SELECTOR, ".impersonation [data-impersonation-reason]")
    assert reason.text == "Reason: Ticket 4821: can't see the invoices page ticket", reason.text
    assert reason.find_element(By.LINK_TEXT, "ticket").get_attribute("href") == "https://support.example/tickets/4821"
    for path, what in (("/account/security", "change the password"), ("/account/email", "change the email address")):
        driver.get(base + path)
        assert what in driver.find_element(By.CSS_SELECTOR, "[data-impersonation-note]").text
        assert not driver.find_elements(By.CSS_SELECTOR, "form[action='/account/security/password'], "
                                                         "form[action='/account/email']")
    viewport(driver, 390, dark=True)
    driver.get(base + "/account/security")
    assert scrolls_sideways(driver, 390) <= 0
    screenshot(driver, screenshots_dir, "issue49-impersonation-390-dark")
    # The sessions page names the staff member on the session, wrapped inside the row on a phone,
    # and offers no sign-out the impersonation could not do.
    driver.get(base + "/account/sessions")
    assert "can't sign them out of their devices" in driver.find_element(By.CSS_SELECTOR, "[data-impersonation-note]").text
    assert not driver.find_elements(By.CSS_SELECTOR, "[data-sign-out], [data-sign-out-all]")
    badge = driver.find_element(By.CSS_SELECTOR, "[data-session] .badge--warning")
    row = driver.find_element(By.CSS_SELECTOR, "[data-session]").rect
    assert badge.rect["x"] + badge.rect["width"] <= row["x"] + row["width"], (badge.rect, row)
    assert scrolls_sideways(driver, 390) <= 0
    screenshot(driver, screenshots_dir, "issue49-impersonation-sessions-390-dark")

    # The header's "Sign out" ends the impersonation, not the console's session: back on the user's page.
    driver.find_element(By.CSS_SELECTOR, ".user-nav__form button").click()
    wait_for_path(driver, "/_/users/")
    assert "impersonation-stopped" in driver.current_url
    assert not driver.find_elements(By.CSS_SELECTOR, ".impersonation")

    # The user's page: the ended impersonation folded under "Show 1 ended session"; a token made
    # for an SDK is where the page opens, not a scroll away.
    ended = driver.find_element(By.CSS_SELECTOR, "#sec-sessions details[data-ended-sessions]")
    assert ended.find_element(By.TAG_NAME, "summary").text == "Show 1 ended session"
    assert ended.get_attribute("open") is None
    assert not ended.find_element(By.CSS_SELECTOR, "tbody tr").is_displayed()
    driver.find_element(By.XPATH, "//button[contains(., 'Copy API token')]").click()
    wait_for_text(driver, "Shown once.")
    token = driver.find_element(By.ID, "issued-token")
    assert driver.switch_to.active_element == token
    box = driver.execute_script("const r = arguments[0].getBoundingClientRect(); return [r.top, r.bottom, innerHeight]", token)
    assert 0 <= box[0] and box[1] <= box[2], box
    screenshot(driver, screenshots_dir, "issue49-console-user-token-390-dark")


def test_a_back_off_is_told_to_the_person(driver, site, screenshots_dir):
    """Item 1, where the person must see it: after ten wrong passwords from this machine (over
    InsForge's API: one budget for every way in) the sign-in page answers even the right one with
    how long to wait, whole on a phone. Staff finding, seeing and lifting it, and the person let in
    at once: ConsoleLockoutTests; its look in the console: the test above."""
    base, person = base_of(site), SEEDED.format(n=12)
    for attempt in range(10):
        sign_in_over_insforge(site.url, person, f"wrong password {attempt}")
    viewport(driver, 390)
    driver.get(base + "/auth/sign-in")
    password = field(driver, "password")
    type_into(field(driver, "email"), person)
    type_into(password, SEEDED_PASSWORD)
    submit_form_of(driver, password)
    wait_for_text(driver, "Too many tries from this device: try again in")
    assert scrolls_sideways(driver, 390) <= 0
    screenshot(driver, screenshots_dir, "issue49-sign-in-back-off-390")
