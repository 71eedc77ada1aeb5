import Foundation

/// Email change on PocketBase: `request-email-change` as the user (after Gatehouse checks the
/// password, which PocketBase itself does not ask for) and `confirm-email-change` with the mailed
/// token and the password. PocketBase mails the link itself (the template `prepareCollection`
/// points at `/auth/confirm-email?token=`) and sends no notice to the old address. It compares
/// addresses exactly, so with a superuser configured Gatehouse first looks for the address in any
/// letter case. Confirming ends every token of the account (PocketBase renews its token key).
extension PocketBaseBackend {
    public var confirmsEmailChangeWithPassword: Bool { true }

    public func requestEmailChange(newEmail: String, password: String?, session: AuthSession) async throws {
        let current = try await currentUser(session)
        let newEmail = newEmail.trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isPlausible(newEmail) else {
            throw AuthError.validation([FieldError(field: "email", message: "Enter a valid email address.")])
        }
        guard EmailAddress.normalize(newEmail) != EmailAddress.normalize(current.email) else {
            throw AuthError.validation([FieldError(field: "email", message: "That is already your email address.")])
        }
        if let password {
            try await http.send(
                "POST", "\(collectionPath)/auth-with-password",
                body: ["identity": .string(current.email), "password": .string(password)], call: .signIn)
        }
        if try await addressTaken(newEmail, byOtherThan: current.id) {
            logger.info("email change to a taken address", metadata: ["user": "\(current.id)"])
            return
        }
        do {
            try await http.send(
                "POST", "\(collectionPath)/request-email-change", token: session.accessToken,
                body: ["newEmail": .string(newEmail)], call: .ownRecord)
        } catch AuthError.validation {
            // The address was checked plausible above: PocketBase refuses it only when it is taken,
            // and that must answer like a free address.
            logger.info("email change to a taken address", metadata: ["user": "\(current.id)"])
            return
        }
        logger.info("email change requested on PocketBase", metadata: ["user": "\(current.id)"])
    }

    public func confirmEmailChange(token: String, password: String?, keeping: AuthSession?) async throws
        -> EmailChangeConfirmation
    {
        guard let claims = PocketBaseToken.decode(token), claims.type == "emailChange", let id = claims.id,
            let newEmail = claims.newEmail
        else { throw AuthError.invalidCode }
        if let expiresAt = claims.expiresAt, expiresAt < clock() { throw AuthError.codeExpired }
        guard let password, !password.isEmpty else {
            throw AuthError.validation([FieldError(field: "password", message: "Enter your password to confirm.")])
        }
        if try await addressTaken(newEmail, byOtherThan: UserID(id)) { throw AuthError.emailExists }
        do {
            try await http.send(
                "POST", "\(collectionPath)/confirm-email-change",
                body: ["token": .string(token), "password": .string(password)])
        } catch AuthError.validation(let fields) where fields.contains(where: { $0.field == "password" }) {
            throw AuthError.invalidCredentials
        }
        logger.info("email changed on PocketBase", metadata: ["user": "\(id)"])
        // The change ended every token of the account; the caller's own goes on as a new sign-in.
        // A collection with MFA on asks its second method again: the caller signs in afresh.
        if keeping?.user.id.rawValue == id, let session = try await signIn(email: newEmail, password: password).session {
            return EmailChangeConfirmation(user: session.user, session: session)
        }
        if superuser != nil { return EmailChangeConfirmation(user: try await admin.user(UserID(id)), session: nil) }
        let now = clock()
        let user = User(id: UserID(id), email: newEmail, emailVerified: true, profile: Profile(), createdAt: now, updatedAt: now)
        return EmailChangeConfirmation(user: user, session: nil)
    }

    /// Whether another record has `email` in any letter case; false when no superuser is configured
    /// (then PocketBase's own, exact check is all there is).
    private func addressTaken(_ email: String, byOtherThan id: UserID) async throws -> Bool {
        guard superuser != nil else { return false }
        let literal = EmailAddress.normalize(email).replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "'", with: "\\'")
        let list = try await PocketBaseAdmin(backend: self).asSuperuser { token in
            try await http.json(
                PocketBaseList<PocketBaseRecord>.self, "GET", records,
                query: [
                    URLQueryItem(name: "filter", value: "email:lower='\(literal)'"),
                    URLQueryItem(name: "perPage", value: "2"), URLQueryItem(name: "fields", value: "id,email")
                ], token: token)
        }
        return list.items.contains { $0.id != id.rawValue }
    }
}

extension PocketBaseBackend {
    /// PocketBase's "confirm email change" mail, its link pointed at Gatehouse's
    /// `/auth/confirm-email?token=` page (`prepareCollection`); the subject is kept.
    static func emailChangeTemplate(linkBase: String, current collection: [String: JSONValue]) -> JSONValue {
        let subject =
            (collection["confirmEmailChangeTemplate"].flatMap {
                if case .object(let template) = $0 { template["subject"] } else { nil }
            }) ?? .string("Confirm your {APP_NAME} new email address")
        return .object([
            "subject": subject,
            "body": .string(
                """
                <p>Hello,</p>
                <p>Click on the link below to confirm your new email address for {APP_NAME}.</p>
                <p><a class="btn" href="\(linkBase)/auth/confirm-email?token={TOKEN}" target="_blank" rel="noopener">Confirm new email</a></p>
                <p><i>If you didn't ask to change your email address, you can ignore this email.</i></p>
                <p>Thanks,<br/>{APP_NAME} team</p>
                """)
        ])
    }
}
