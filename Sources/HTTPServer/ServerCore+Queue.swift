internal import CMicroHTTPD
import Logging

extension ServerCore {
    /// Hands `response` to MHD, writes the access log line, and returns MHD's verdict.
    func queue(_ response: Response, on connection: OpaquePointer, state: RequestState) -> MHD_Result {
        var response = response
        if isDraining {
            response.headers.replaceOrAdd("Connection", "close")
        }
        if !(100...599).contains(response.status) || !Self.headersAreValid(response.headers) {
            logger.error(
                "invalid response dropped",
                metadata: [
                    "path": "\(state.pathForLog)", "status": "\(response.status)"
                ])
            response.stream?.terminate()
            response = .text("Internal Server Error\n", status: 500)
        }
        response = admitStream(response, state: state)
        guard let mhdResponse = Self.makeMHDResponse(response, connection: connection) else {
            logger.error("could not allocate a response", metadata: ["path": "\(state.pathForLog)"])
            return .NO
        }
        defer { MHD_destroy_response(mhdResponse) }
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        let elapsed = ContinuousClock.now - state.started
        let milliseconds =
            Double(elapsed.components.seconds) * 1000
            + Double(elapsed.components.attoseconds) / 1e15
        logger.info(
            "request",
            metadata: [
                "method": "\(state.method)",
                "path": "\(state.pathForLog)",
                "status": "\(response.status)",
                "duration_ms": "\((milliseconds * 100).rounded() / 100)",
                "remote": "\(state.remoteAddress)"
            ])
        return result
    }

    /// An MHD response with a copy of the body (or reading the stream) and every header MHD does
    /// not manage itself.
    private static func makeMHDResponse(_ response: Response, connection: OpaquePointer) -> OpaquePointer? {
        let created =
            if let stream = response.stream { makeStreamingBody(stream, connection: connection) } else {
                // MHD copies the bytes (MUST_COPY) and never writes through the pointer, so the
                // body is lent as it is rather than copied once more to make it mutable.
                response.body.withUnsafeBytes { buffer in
                    MHD_create_response_from_buffer(
                        buffer.count, UnsafeMutableRawPointer(mutating: buffer.baseAddress), .RESPMEM_MUST_COPY)
                }
            }
        guard let created else { return nil }
        for (name, value) in response.headers where !isManagedByMHD(name) {
            guard MHD_add_response_header(created, name, value) == .YES else {
                MHD_destroy_response(created)
                return nil
            }
        }
        return created
    }

    /// Framing headers MHD computes from the body; a handler's copy could contradict it. Compared
    /// byte by byte, without lowercasing each header of each response.
    private static let managedByMHD = ["content-length", "transfer-encoding", "date"].map { Array($0.utf8) }

    private static func isManagedByMHD(_ name: String) -> Bool {
        managedByMHD.contains { managed in
            name.utf8.count == managed.count
                && zip(name.utf8, managed).allSatisfy { byte, lower in
                    byte == lower || ((0x41...0x5A).contains(byte) && byte | 0x20 == lower)
                }
        }
    }

    /// Rejects names that are not tokens and values with CR, LF or NUL (response splitting).
    static func headersAreValid(_ headers: HTTPHeaders) -> Bool {
        headers.allSatisfy { name, value in
            !name.isEmpty
                && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
                && !value.utf8.contains { $0 == 0x0D || $0 == 0x0A || $0 == 0 }
        }
    }
}
