import Accounts
import HTTPServer

/// `GET /_/api/users/export`'s answer: the export as a download.
extension UserExport {
    func response(format: UserImportFile.Format, tag: String?) async throws -> Response {
        let body = try await file(format: format, tag: tag)
        var response = Response(
            status: 200,
            headers: [
                "Content-Type": format == .json ? "application/json; charset=utf-8" : "text/csv; charset=utf-8"
            ], body: body)
        response.headers.replaceOrAdd(
            "Content-Disposition", "attachment; filename=\"\(Self.fileName(format: format, tag: tag))\"")
        response.headers.replaceOrAdd("Cache-Control", "no-store")
        return response
    }
}
