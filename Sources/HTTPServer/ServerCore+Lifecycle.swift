internal import CMicroHTTPD
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension ServerCore {
    /// Validates the configuration and starts the daemon; returns it with the bound port.
    /// The caller keeps `self` retained (passed as `cls`) until the daemon is stopped.
    func startDaemon() throws(HTTPServerError) -> (daemon: OpaquePointer, port: Int) {
        let configuration = self.configuration
        guard let port = UInt16(exactly: configuration.port) else {
            throw .invalidConfiguration("port \(configuration.port) is not in 0...65535")
        }
        let limits: [(String, Int)] = [
            ("threadCount", configuration.threadCount),
            ("connectionTimeout", configuration.connectionTimeout),
            ("headerTimeout", configuration.headerTimeout),
            ("maxBodyBytes", configuration.maxBodyBytes),
            ("maxHeaderBytes", configuration.maxHeaderBytes),
            ("maxConnections", configuration.maxConnections),
            ("maxConnectionsPerIP", configuration.maxConnectionsPerIP)
        ]
        for (name, value) in limits where value < 1 || value > Int(Int32.max) {
            throw .invalidConfiguration("\(name) must be between 1 and \(Int32.max)")
        }
        let address = try BindAddress(host: configuration.host, port: port)
        Self.raiseOpenFileLimit(toFit: configuration.maxConnections)

        _ = captureStartupLog(true)
        let cls = Unmanaged.passUnretained(self).toOpaque()
        let started: OpaquePointer? = address.withSockaddr { sockaddr in
            var settings = gh_daemon_settings(
                bind_address: sockaddr,
                use_ipv6: address.isIPv6 ? 1 : 0,
                thread_pool_size: UInt32(configuration.threadCount),
                connection_timeout_seconds: UInt32(configuration.headerTimeout),
                connection_limit: UInt32(configuration.maxConnections),
                per_ip_connection_limit: UInt32(configuration.maxConnectionsPerIP),
                connection_memory_limit: configuration.maxHeaderBytes
            )
            return gh_start_daemon(
                &settings, accessHandler, requestCompleted, uriLogCallback, connectionNotified, mhdLogger, cls)
        }
        let failure = errno
        let log = captureStartupLog(false)
        guard let daemon = started else {
            throw Self.startError(errno: failure, log: log, host: configuration.host, port: configuration.port)
        }
        let bound = Int(gh_bound_port(daemon))
        let logger = self.logger
        connections.startSweeping(every: .milliseconds(250)) { expired, evicted in
            logger.notice("slow connections closed", metadata: ["past_deadline": "\(expired)", "made_room": "\(evicted)"])
        }
        return (daemon, bound > 0 ? bound : configuration.port)
    }

    /// Raises the soft open-file limit (often 1,024) toward the hard one, so `connections` sockets
    /// plus the process's own files fit; MHD refuses connections past the limit otherwise.
    static func raiseOpenFileLimit(toFit connections: Int) {
        #if os(Linux)
            let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
            let resource = RLIMIT_NOFILE
        #endif
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return }
        let wanted = rlim_t(connections + 256)
        guard limit.rlim_cur < wanted else { return }
        limit.rlim_cur = min(wanted, limit.rlim_max)
        _ = setrlimit(resource, &limit)
    }

    /// Stops accepting, waits up to `gracePeriod` for requests in flight, answers the rest 503,
    /// then stops the daemon and closes the listening socket MHD handed back.
    func stopDaemon(_ daemon: OpaquePointer, gracePeriod: Duration) async {
        beginDraining()
        let listener = MHD_quiesce_daemon(daemon)
        // Streams never end by themselves: end them now, or each would hold the grace period.
        streams.finishAll()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: gracePeriod)
        while inFlightCount > 0, clock.now < deadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(5))
        }
        let remaining = inFlightCount
        let abandoned = abandonSuspended()
        if remaining > 0 {
            logger.warning(
                "shutdown grace period over",
                metadata: [
                    "in_flight": "\(remaining)", "answered_503": "\(abandoned.count)"
                ])
        }
        // Give MHD a moment to send the 503s: stopping closes resumed connections unanswered.
        let flushDeadline = clock.now.advanced(by: .seconds(1))
        while abandoned.contains(where: { !$0.isCompleted }), clock.now < flushDeadline, !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(5))
        }
        MHD_stop_daemon(daemon)
        connections.stopSweeping()
        if listener >= 0 {
            close(listener)
        }
        releaseHandlers()
    }

    private static func startError(errno code: Int32, log: [String], host: String, port: Int) -> HTTPServerError {
        let text = log.joined(separator: "; ")
        if code == EADDRINUSE || text.localizedCaseInsensitiveContains("in use") {
            return .addressInUse(host: host, port: port)
        }
        if code == EACCES || text.localizedCaseInsensitiveContains("permission denied") {
            return .permissionDenied(host: host, port: port)
        }
        return .startFailed(reason: text.isEmpty ? String(cString: strerror(code)) : text)
    }
}
