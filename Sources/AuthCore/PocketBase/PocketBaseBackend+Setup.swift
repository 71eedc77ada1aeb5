import Foundation

extension PocketBaseBackend {
    /// Readies the collection for Gatehouse, as the superuser: adds the profile JSON field when
    /// missing, turns on sign-in with a mailed code (OTP) and, given Gatehouse's public URL, points the
    /// verification mail's link at `/auth/verify-link?token=`, the email-change mail's at
    /// `/auth/confirm-email?token=` and the reset mail's at `/auth/reset-password?token=`, so the
    /// hosted pages confirm them. Safe to run at every start.
    public func prepareCollection(verificationLinkBase: String?) async throws {
        let admin = PocketBaseAdmin(backend: self)
        let collection = try await admin.asSuperuser { token in
            try await http.json([String: JSONValue].self, "GET", collectionPath, token: token)
        }
        var patch: [String: JSONValue] = [:]
        if let profileField = configuration.profileField, case .array(let fields)? = collection["fields"],
            !fields.contains(where: { if case .object(let field) = $0 { field["name"] == .string(profileField) } else { false } })
        {
            patch["fields"] = .array(
                fields + [
                    .object([
                        "name": .string(profileField), "type": .string("json"), "maxSize": .number(65536),
                        "hidden": .bool(false), "presentable": .bool(false), "required": .bool(false)
                    ])
                ])
        }
        if var base = verificationLinkBase {
            while base.hasSuffix("/") { base.removeLast() }
            let subject =
                (collection["verificationTemplate"].flatMap {
                    if case .object(let template) = $0 { template["subject"] } else { nil }
                }) ?? .string("Verify your {APP_NAME} email")
            patch["verificationTemplate"] = .object([
                "subject": subject,
                "body": .string(
                    """
                    <p>Hello,</p>
                    <p>Thank you for joining us at {APP_NAME}.</p>
                    <p>Click on the link below to verify your email address.</p>
                    <p><a class="btn" href="\(base)/auth/verify-link?token={TOKEN}" target="_blank" rel="noopener">Verify</a></p>
                    <p><i>If you didn't recently register, please ignore this email.</i></p>
                    <p>Thanks,<br/>{APP_NAME} team</p>
                    """)
            ])
            patch["confirmEmailChangeTemplate"] = Self.emailChangeTemplate(linkBase: base, current: collection)
            patch["resetPasswordTemplate"] = Self.resetPasswordTemplate(
                linkBase: base,
                subject: collection["resetPasswordTemplate"].flatMap {
                    if case .object(let template) = $0 { template["subject"] } else { nil }
                })
        }
        // Sign-in with a mailed code (`.emailOTP`) needs OTP on for the collection.
        if let otp = Self.otpPatch(collection) { patch["otp"] = otp }
        guard !patch.isEmpty else { return }
        try await admin.asSuperuser { token in
            try await http.send("PATCH", collectionPath, token: token, body: patch)
        }
        logger.notice(
            "PocketBase collection prepared for Gatehouse",
            metadata: [
                "collection": "\(configuration.collection)", "changed": "\(patch.keys.sorted())"
            ])
    }
}
