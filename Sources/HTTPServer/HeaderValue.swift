import HeaderParameters

/// Parameters of structured header values such as `multipart/form-data; boundary="x"`.
enum HeaderValue {
    /// The value of parameter `name` (case-insensitive) in a `type; a=b; c="d"` header value.
    static func parameter(_ name: String, in value: String) -> String? {
        HeaderParameters(value)[name]
    }
}
