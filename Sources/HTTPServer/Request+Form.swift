extension Request {
    /// The text fields of a form body: `application/x-www-form-urlencoded` (strictly decoded,
    /// `+` is a space) or `multipart/form-data` (file parts excluded, see `multipartForm()`).
    public func form() throws(RequestError) -> Parameters {
        switch mediaType {
        case "application/x-www-form-urlencoded":
            guard let text = UTF8Text.string(body) else { throw .malformedEncoding }
            return try PercentDecoding.parsePairs(text[...])
        case "multipart/form-data":
            return try multipartForm().fields
        default:
            throw .unsupportedMediaType
        }
    }

    /// A `multipart/form-data` body with its text fields and file parts.
    public func multipartForm() throws(RequestError) -> MultipartForm {
        guard mediaType == "multipart/form-data" else { throw .unsupportedMediaType }
        guard let contentType = headers["Content-Type"],
            let boundary = HeaderValue.parameter("boundary", in: contentType),
            !boundary.isEmpty, boundary.utf8.count <= 70
        else {
            throw .malformedMultipart
        }
        return try MultipartForm(parsing: body, boundary: boundary)
    }
}
