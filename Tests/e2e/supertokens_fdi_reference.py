"""The reference FDI for test_supertokens_fdi_differential.py: an unchanged supertokens-python 0.31.4
app (Flask, as its docs write one) with Gatehouse as its core, serving the frontend API at /auth,
with the mailing recipes, the TOTP and MFA recipes (the authenticator as a second factor), and the
PyPI supertokens-rownd 1.0.2 plugin (an app signing in by email, no Rownd migration) serving its
routes at /auth/plugin/rownd. Its own process, since supertokens-python keeps one global
configuration per process.

Usage: python3 supertokens_fdi_reference.py CORE_URL API_KEY SMTP_PORT PORT
"""

import sys

from flask import Flask
import supertokens_rownd
from supertokens_python import InputAppInfo, SupertokensConfig, SupertokensExperimentalConfig, init
from supertokens_python.framework.flask import Middleware
from supertokens_python.recipe import multifactorauth, totp, usermetadata
from werkzeug.serving import run_simple

from supertokens_recipes import mailing_recipes


def main() -> None:
    core_url, api_key, smtp_port, port = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    init(
        app_info=InputAppInfo(
            app_name="Demo", api_domain=f"http://127.0.0.1:{port}", website_domain="http://127.0.0.1:3000",
            api_base_path="/auth"),
        supertokens_config=SupertokensConfig(connection_uri=core_url, api_key=api_key),
        framework="flask",
        mode="wsgi",
        recipe_list=[
            *mailing_recipes(smtp_port, "OPTIONAL", "USER_INPUT_CODE"), usermetadata.init(), totp.init(),
            multifactorauth.init()],
        experimental=SupertokensExperimentalConfig(plugins=[supertokens_rownd.init(
            disable_rownd_user_migration=True, api_base_path="/auth", api_domain=f"http://127.0.0.1:{port}",
            app_name="Demo", app_config={"signInMethods": [{"method": "email"}], "auth": {"useExplicitSignUpFlow": True}})]),
    )
    app = Flask(__name__)
    Middleware(app)
    run_simple("127.0.0.1", port, app, threaded=True)


if __name__ == "__main__":
    main()
