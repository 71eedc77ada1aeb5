"""The browser the tests share (one Chromium per test process, conftest.py): what a test leaves in it
— cookies on loopback hosts (a jar per host, not per port), local and session storage, cached pages,
emulated media, device metrics and time zone, a granted permission, a WebAuthn virtual authenticator,
another window, a changed window size or WebDriver timeout, an open dialog — is gone when
reset_browser hands it to the next test."""

from __future__ import annotations

import itertools
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from selenium.webdriver.support import expected_conditions as EC

from conftest import BROWSER_TIMEOUTS, WINDOW, reset_browser
from test_browser_flow import wait

STATE = ("return [document.cookie, localStorage.getItem('left'), sessionStorage.getItem('left'),"
         " matchMedia('(prefers-color-scheme: dark)').matches, innerWidth, devicePixelRatio,"
         " Intl.DateTimeFormat().resolvedOptions().timeZone]")

NOTIFICATIONS = "return navigator.permissions.query({name: 'notifications'}).then(p => p.state)"


class Site:
    """A loopback site: `/` sets a cookie, `/plain` sets none, `/cached` counts the requests that
    reach it and lets the browser keep its answer an hour."""

    def __init__(self):
        counter = itertools.count(1)
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                if self.path == "/":
                    self.send_header("Set-Cookie", "left=1; Path=/")
                if self.path == "/cached":
                    site.cached_requests = next(counter)
                    self.send_header("Cache-Control", "max-age=3600")
                self.end_headers()
                self.wfile.write(b"<!doctype html><title>site</title><p>site</p>")

            def log_message(self, *args):
                pass

        self.cached_requests = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        port = self.server.server_address[1]
        self.origins = (f"http://127.0.0.1:{port}", f"http://localhost:{port}")
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_reset_browser_leaves_nothing_for_the_next_test(browser):
    driver, site = browser, Site()
    try:
        zone = driver.execute_script("return Intl.DateTimeFormat().resolvedOptions().timeZone")
        for origin in site.origins:
            driver.get(origin + "/")
            driver.execute_script("localStorage.setItem('left', '1'); sessionStorage.setItem('left', '1')")
            assert driver.execute_script(STATE)[:3] == ["left=1", "1", "1"]
        driver.get(site.origins[0] + "/cached")
        assert site.cached_requests == 1
        # A host the windows never showed (a redirect's, say) keeps its cookies in the same jar.
        driver.execute_cdp_cmd("Network.setCookie", {"name": "left", "value": "1", "domain": "elsewhere.test", "path": "/"})
        asked = driver.execute_script(NOTIFICATIONS)
        driver.execute_cdp_cmd("Browser.grantPermissions", {"origin": site.origins[0], "permissions": ["notifications"]})
        assert (asked, driver.execute_script(NOTIFICATIONS)) == ("prompt", "granted")
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
        driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                               {"width": 375, "height": 812, "deviceScaleFactor": 2, "mobile": True})
        driver.execute_cdp_cmd("Emulation.setTimezoneOverride", {"timezoneId": "Pacific/Chatham"})
        driver.execute_cdp_cmd("WebAuthn.enable", {"enableUI": False})
        authenticator = driver.execute_cdp_cmd("WebAuthn.addVirtualAuthenticator", {"options": {
            "protocol": "ctap2", "transport": "internal", "hasResidentKey": True, "hasUserVerification": True,
            "isUserVerified": True}})["authenticatorId"]
        driver.set_window_size(800, 600)
        driver.implicitly_wait(7)
        driver.set_page_load_timeout(3)
        driver.execute_script("window.open('about:blank')")
        driver.execute_script("setTimeout(() => alert('left open'), 0)")
        wait(driver).until(EC.alert_is_present())

        reset_browser(driver)

        assert driver.current_url == "about:blank"
        assert len(driver.window_handles) == 1
        assert driver.get_window_size() == WINDOW
        timeouts = driver.timeouts
        assert (timeouts.implicit_wait, timeouts.page_load, timeouts.script) == \
            (BROWSER_TIMEOUTS["implicit"] / 1000, BROWSER_TIMEOUTS["pageLoad"] / 1000, BROWSER_TIMEOUTS["script"] / 1000)
        assert driver.execute_cdp_cmd("Network.getAllCookies", {})["cookies"] == []
        try:
            driver.execute_cdp_cmd("WebAuthn.getCredentials", {"authenticatorId": authenticator})
            raise AssertionError("the virtual authenticator outlived the reset")
        except AssertionError:
            raise
        except Exception as error:  # noqa: BLE001 - CDP's answer for an unknown authenticator
            assert "Virtual Authenticator" in str(error), error
        driver.get(site.origins[0] + "/cached")
        assert site.cached_requests == 2, "the page came from the cache a previous test filled"
        assert driver.execute_script(NOTIFICATIONS) == asked
        for origin in site.origins:
            driver.get(origin + "/plain")
            assert driver.execute_script(STATE) == ["", None, None, False, WINDOW["width"], 1, zone], origin
    finally:
        site.close()
