import HTTPServer

extension TemplateRenderer {
    /// The friendly error page, used for 403/404/500 and friends.
    func errorPage(status: Int, heading: String, message: String) -> Response {
        page(
            .error,
            [
                "title": heading, "status": status, "heading": heading, "message": message, "assetVersion": "1"
            ], status: status)
    }

    /// The error page inside the visitor's own frame (their navigation, signed in or not).
    func errorPage(_ visit: Visit, status: Int, title: String, heading: String, message: String) -> Response {
        page(.error, visit.context(title: title, ["status": status, "heading": heading, "message": message]), status: status)
    }
}
