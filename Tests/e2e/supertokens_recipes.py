"""The recipes of the supertokens-python apps the SuperTokens suites run on Gatehouse as their core:
sessions, email-password, email verification and passwordless by email, each mailing through the
SDK's own SMTP delivery into Gatehouse's SMTP catcher (`--smtp`), so their mails land in the dev
mailbox."""

from supertokens_python.ingredients.emaildelivery.types import EmailDeliveryConfig, SMTPSettings, SMTPSettingsFrom
from supertokens_python.recipe import emailpassword, emailverification, passwordless, session
from supertokens_python.recipe.emailpassword.emaildelivery.services import SMTPService as PasswordSMTP
from supertokens_python.recipe.emailverification.emaildelivery.services import SMTPService as VerificationSMTP
from supertokens_python.recipe.passwordless import ContactEmailOnlyConfig
from supertokens_python.recipe.passwordless.emaildelivery.services import SMTPService as PasswordlessSMTP


def mailing_recipes(smtp_port: int, verification_mode: str, flow_type: str) -> list:
    smtp = SMTPSettings(host="127.0.0.1", port=smtp_port, from_=SMTPSettingsFrom("Demo", "demo@example.com"), secure=False)
    return [
        session.init(),
        emailpassword.init(email_delivery=EmailDeliveryConfig(service=PasswordSMTP(smtp))),
        emailverification.init(mode=verification_mode, email_delivery=EmailDeliveryConfig(service=VerificationSMTP(smtp))),
        passwordless.init(
            flow_type=flow_type, contact_config=ContactEmailOnlyConfig(),
            email_delivery=EmailDeliveryConfig(service=PasswordlessSMTP(smtp))),
    ]
