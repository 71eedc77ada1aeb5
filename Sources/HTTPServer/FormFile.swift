/// An uploaded file from a multipart form.
public struct FormFile: Sendable, Equatable {
    /// The form field's name.
    public let fieldName: String
    /// The client-supplied filename: untrusted, never use it as a path.
    public let filename: String
    public let contentType: String
    public let bytes: [UInt8]
}
