import HTTPServer
import Testing

/// Issue 8: one header-parameter parser, and it reads quoted values whole — a `;` inside
/// `filename="a;b.csv"` used to end the file name at `a`.
@Suite struct HeaderParameterTests {
    private func upload(contentType: String, disposition: String) throws -> MultipartForm {
        var headers = HTTPHeaders()
        headers.add("Content-Type", contentType)
        let body = Array("--XYZ\r\nContent-Disposition: \(disposition)\r\n\r\nemail\r\nx@y.z\r\n--XYZ--\r\n".utf8)
        return try Request(method: .post, target: "/upload", headers: headers, body: body).multipartForm()
    }

    @Test func aSemicolonInsideQuotesStaysInTheValue() throws {
        let form = try upload(
            contentType: "multipart/form-data; boundary=XYZ",
            disposition: #"form-data; name="file"; filename="users;2026.csv""#)
        #expect(form.files.first?.filename == "users;2026.csv")
    }

    @Test func quotedBoundariesAndEscapesAreRead() throws {
        let form = try upload(
            contentType: #"multipart/form-data; charset="a;b"; boundary="XYZ""#,
            disposition: #"form-data; name="file"; filename="say \"hi\".csv""#)
        #expect(form.files.first?.filename == #"say "hi".csv"#)
    }
}
