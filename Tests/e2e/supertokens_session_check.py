"""Checks SuperTokens sessions with the unchanged supertokens-python SDK (0.31.4), Gatehouse as its
core: for each access/refresh token pair on stdin (JSON lines), the SDK's own session check and
refresh, one JSON line out each (`check`).
Its own process, since supertokens-python keeps one global configuration per process; it stays up
between pairs, so a test pays its start-up once.

Usage: python3 supertokens_session_check.py CORE_URL API_KEY < pairs
"""

import json
import sys

from supertokens_python import InputAppInfo, SupertokensConfig, init
from supertokens_python.recipe import session
from supertokens_python.recipe.session.syncio import (
    get_session_without_request_response,
    refresh_session_without_request_response,
)


def check(access: str, refresh: str) -> dict:
    """The SDK's session check of `access` (`user`, else `checkError`), then its refresh of `refresh`
    (`refreshedUser` and the new `access`/`refresh`, else `refreshError`): each refusal's class."""
    answer: dict = {}
    try:
        checked = get_session_without_request_response(access, anti_csrf_check=False)
        answer["user"] = checked.get_user_id() if checked else None
    except Exception as error:  # noqa: BLE001 - the SDK's refusal is the answer
        answer["checkError"] = type(error).__name__
    try:
        refreshed = refresh_session_without_request_response(refresh, disable_anti_csrf=True)
        tokens = refreshed.get_all_session_tokens_dangerously()
        answer.update(refreshedUser=refreshed.get_user_id(), access=tokens["accessToken"], refresh=tokens["refreshToken"])
    except Exception as error:  # noqa: BLE001
        answer["refreshError"] = type(error).__name__
    return answer


def main() -> None:
    core_url, api_key = sys.argv[1], sys.argv[2]
    init(
        app_info=InputAppInfo(app_name="Demo", api_domain="http://127.0.0.1:5000", website_domain="http://127.0.0.1:3000"),
        supertokens_config=SupertokensConfig(connection_uri=core_url, api_key=api_key),
        framework="flask",
        mode="wsgi",
        recipe_list=[session.init()],
    )
    for line in sys.stdin:
        pair = json.loads(line)
        print(json.dumps(check(pair["access"], pair["refresh"])), flush=True)


if __name__ == "__main__":
    main()
