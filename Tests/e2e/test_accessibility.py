"""Issue 25: axe-core (4.12, a current release) finds no WCAG 2.x A/AA violation on the main pages, in
the light and the dark scheme: the account pages a person sees, an app's branded hosted page, and
the console. axe-core is the script PyPI's `axe-playwright-python` ships (installed with `--no-deps`
by the Makefile: only the script is used, put into every page the browser opens through Chromium's
DevTools, so it crosses WebDriver once). Every WCAG A/AA rule runs in the light scheme; the dark
load runs the rules a colour scheme can break (issue 49: 22 pages, faster than 19 were)."""

from __future__ import annotations

import importlib.util
import json
import urllib.parse
import urllib.request
from pathlib import Path

from selenium.webdriver.common.by import By

from conftest import create_superuser, unique_email
from test_browser_flow import PASSWORD, browser, field, submit_form_of, type_into, wait_for_path  # noqa: F401
from test_console_browser import console_sign_in

STAFF_EMAIL = "a11y-staff@example.com"
STAFF_PASSWORD = "quiet-otter-staff-1"
CALLBACK = "http://127.0.0.1:9/notes/callback"
CHALLENGE = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"


def axe_script() -> str:
    """The bundled axe.min.js, found without importing the package (which imports Playwright)."""
    spec = importlib.util.find_spec("axe_playwright_python")
    assert spec and spec.submodule_search_locations, "pip install --no-deps axe-playwright-python (make test-deps)"
    script = Path(next(iter(spec.submodule_search_locations))) / "axe.min.js"
    text = script.read_text()
    assert text.startswith("/*! axe v4."), text[:40]
    return text


# The WCAG 2.0/2.1/2.2 A and AA rules; and the ones a colour scheme can change (the rest read the
# document, which is the same in both schemes).
EVERY_RULE = "{type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa']}"
COLOUR_RULES = "{type: 'rule', values: ['color-contrast', 'link-in-text-block']}"


def violations(driver, rules: str = EVERY_RULE) -> list[str]:
    """axe-core's violations of `rules` on the page shown (axe is in every page the browser opens,
    `Page.addScriptToEvaluateOnNewDocument`), one line each."""
    result = driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        f"axe.run(document, {{runOnly: {rules}, resultTypes: ['violations']}})"
        ".then(r => done(JSON.stringify(r.violations))).catch(e => done(JSON.stringify([{id: 'axe-error', "
        "help: String(e), nodes: []}])));")
    return [f"{v['id']}: {v['help']} — " + "; ".join(n.get("target", [""])[0] for n in v["nodes"][:3])
            for v in json.loads(result)]


def api_call(base: str, token: str, path: str, body: dict) -> dict:
    """A POST to the admin API; its JSON answer ({} for none)."""
    request = urllib.request.Request(base + path, method="POST", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json", "Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=10) as answer:
        raw = answer.read()
        return json.loads(raw) if raw else {}


def scheme(driver, dark: bool) -> None:
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {
        "features": [{"name": "prefers-color-scheme", "value": "dark" if dark else "light"}]})


def test_main_pages_have_no_axe_violations_light_and_dark(browser, start_server, binary, tmp_path, screenshots_dir):
    db = tmp_path / "a11y.sqlite"
    create_superuser(binary, db, STAFF_EMAIL, STAFF_PASSWORD)
    server = start_server(db_path=db, verification="none")
    base = server.url
    token = server.superuser_token()
    request = urllib.request.Request(
        base + "/_/api/apps", method="POST",
        data=json.dumps({"id": "notes", "name": "Notes", "callbackURLs": [CALLBACK],
                         "accentColor": "#0f766e", "termsURL": "https://notes.example/terms",
                         "privacyURL": "https://notes.example/privacy"}).encode(),
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=10) as answer:
        assert answer.status == 201
    # A webhook endpoint with a delivery for the inspector to show (the server's own health route
    # answers the POST with 405, kept as the try's answer).
    webhook = api_call(base, token, "/_/api/webhooks", {"url": base + "/api/health"})
    api_call(base, token, f"/_/api/webhooks/{webhook['id']}/test", {"type": "user.created"})
    app_page = "/auth/sign-in?" + urllib.parse.urlencode(
        {"redirect": CALLBACK, "client_type": "web", "code_challenge": CHALLENGE, "code_challenge_method": "S256"})

    driver = browser
    # axe goes into every page as it loads, sent to the browser once rather than with each check.
    axe = driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": axe_script()})
    found: dict[str, list[str]] = {}

    def check(path: str) -> None:
        """Every rule in the light scheme; in the dark one (loaded afresh: Chromium keeps some form
        controls' colours when the scheme changes under a page) the rules colours can break."""
        for dark in (False, True):
            scheme(driver, dark)
            driver.get(base + path)
            problems = violations(driver, COLOUR_RULES if dark else EVERY_RULE)
            if problems:
                found[f"{path} ({'dark' if dark else 'light'})"] = problems

    # A person's pages, signed out and then signed in.
    email = unique_email("a11y")
    for path in ("/auth/sign-in", "/auth/sign-up", "/auth/forgot-password",
                 "/auth/verify?" + urllib.parse.urlencode({"email": email}), app_page, "/auth/magic?t=" + "A" * 43,
                 "/auth/resend-verification", "/auth/reset-password?token=" + "A" * 43):
        check(path)
    driver.get(base + "/auth/sign-up")
    type_into(field(driver, "email"), email)
    type_into(field(driver, "name"), "Ada Access")
    password = field(driver, "password")
    type_into(password, PASSWORD)
    submit_form_of(driver, password)
    wait_for_path(driver, "/account")
    for path in ("/account", "/account/linked", "/account/sessions", "/account/security", "/account/email"):
        check(path)

    # The console.
    driver.delete_all_cookies()
    check("/_/")
    console_sign_in(driver, base, STAFF_EMAIL, STAFF_PASSWORD)
    wait_for_path(driver, "/_/users")
    user = driver.find_element(By.CSS_SELECTOR, "a.cx-usercell__email").get_attribute("href")
    for path in ("/_/users", urllib.parse.urlsplit(user).path, "/_/audit", "/_/providers",
                 "/_/providers/apps/notes/edit", "/_/mailbox", "/_/test-users", "/_/security", "/_/webhooks",
                 f"/_/webhooks/{webhook['id']}", "/_/webhooks/bin/demo", "/_/staff"):
        check(path)
    # The Testing page with a fault in force, the ledger and an address's (empty) codes.
    api_call(base, token, "/_/api/test/faults", {"path": "/nowhere", "status": 503, "count": 3})
    testing = "/_/testing?" + urllib.parse.urlencode({"email": email})
    check(testing)
    for dark in (False, True):
        scheme(driver, dark)
        driver.get(base + testing)
        driver.save_screenshot(str(screenshots_dir / f"console-testing-{'dark' if dark else 'light'}.png"))
    # The inspector as staff see it, a try opened, in both schemes (looked at by hand, see the README).
    for dark in (False, True):
        scheme(driver, dark)
        driver.get(base + f"/_/webhooks/{webhook['id']}")
        for summary in driver.find_elements(By.CSS_SELECTOR, "tr[data-delivery] summary")[:1]:
            summary.click()
        driver.save_screenshot(str(screenshots_dir / f"console-webhook-inspector-{'dark' if dark else 'light'}.png"))

    driver.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": axe["identifier"]})
    assert not found, "axe-core violations:\n" + "\n".join(
        f"{page}: {problem}" for page, problems in found.items() for problem in problems)
