internal import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The C callbacks handed to libmicrohttpd. They are global constants in their own file, never
// in main.swift, whose top-level closures are inferred @MainActor and trap on MHD's threads.
// Each reaches the server through `cls` (an unretained ServerCore) and the request through
// `*con_cls` (a retained RequestState, released in `requestCompleted`).

/// Called with the raw request-target before MHD parses it; the state it returns becomes `*con_cls`.
let uriLogCallback: gh_uri_log_callback = { cls, uri, connection in
    guard let cls, let uri, let connection else { return nil }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let raw = Array(UnsafeRawBufferPointer(start: uri, count: strlen(uri)))
    let state = core.beginRequest(rawTarget: raw, connection: connection)
    return Unmanaged.passRetained(state).toOpaque()
}

/// MHD's access handler: see `ServerCore.handle`.
let accessHandler: MHD_AccessHandlerCallback = {
    cls, connection, _, method, version, uploadData, uploadDataSize, requestContext in
    guard let cls, let connection, let method, let uploadDataSize, let stateRaw = requestContext?.pointee else {
        return .NO
    }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(stateRaw).takeUnretainedValue()
    return core.handle(
        connection: connection,
        state: state,
        method: method,
        version: version,
        uploadData: uploadData,
        uploadDataSize: uploadDataSize
    )
}

/// Releases the request's state once MHD is done with it, however the request ended.
let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, requestContext, _ in
    guard let cls else { return }
    let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
    if let connection { core.connections.requestEnded(Int(bitPattern: connection)) }
    guard let requestContext, let stateRaw = requestContext.pointee else { return }
    requestContext.pointee = nil
    let state = Unmanaged<RequestState>.fromOpaque(stateRaw).takeRetainedValue()
    core.endRequest(state)
}

/// Tracks connections as MHD opens and closes them (`ConnectionRegistry`); CLOSED comes before
/// MHD closes the socket.
let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, _, code in
    guard let cls, let connection else { return }
    let registry = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().connections
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        registry.opened(Int(bitPattern: connection), socket: gh_connection_socket(connection))
    case .CONNECTION_NOTIFY_CLOSED:
        registry.closed(Int(bitPattern: connection))
    }
}

/// Formats MHD's printf-style error log and passes it to swift-log.
let mhdLogger: MHD_LogCallback = { cls, format, arguments in
    guard let cls, let format, let arguments else { return }
    var buffer = [CChar](repeating: 0, count: 512)
    let written = vsnprintf(&buffer, buffer.count, format, arguments)
    guard written >= 0 else { return }
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    let message = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().mhdLog(message)
}
