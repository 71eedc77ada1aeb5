import Foundation

extension HTTPServer {
    /// Where the server listens and the limits it enforces; defaults are safe for a local server.
    public struct Configuration: Sendable {
        /// An IP literal to bind: `127.0.0.1` (default), `::1`, `0.0.0.0`, `::` or any other
        /// address of this host. `localhost` means `127.0.0.1`.
        public var host: String
        /// TCP port; 0 picks a free one (read it back from `HTTPServer.port`).
        public var port: Int
        /// Threads polling connections; handlers themselves run on Swift's concurrency pool.
        public var threadCount: Int
        /// Idle seconds before a connection is closed once a request's headers are in, and between
        /// keep-alive requests (MHD's default, 0, lets slowloris hold it). A kept-alive connection
        /// must also have finished its next request's head this long after the last response.
        public var connectionTimeout: Int
        /// Seconds a client has to send a whole request head, however it trickles it (counted from
        /// the connection's start, or the request line on a kept-alive one), and idle seconds allowed
        /// while a chunked body streams in. 10: a real client sends its head in one packet, and a
        /// slow-header attacker gets a connection for at most this long.
        public var headerTimeout: Int
        /// Largest accepted request body; larger ones get 413 without being read.
        public var maxBodyBytes: Int
        /// Per-connection memory for the request line and headers (MHD_OPTION_CONNECTION_MEMORY_LIMIT);
        /// requests whose headers do not fit are answered by MHD itself with 431.
        public var maxHeaderBytes: Int
        /// Simultaneous connections overall: far above what slow clients from one address may hold
        /// (`maxConnectionsPerIP`). Past 15/16 of it, each new connection closes the one that has
        /// waited longest without a request in progress, so however many addresses hold slow
        /// connections, a newcomer is let in at once (`ConnectionRegistry`). The open-file limit is
        /// raised to fit at start.
        public var maxConnections: Int
        /// Simultaneous connections from one IP address.
        public var maxConnectionsPerIP: Int
        /// Streamed responses (server-sent events) of one pool (`ResponseStream.pool`) open at once;
        /// past it a new one is answered 503.
        public var maxStreams: Int
        /// Streamed responses of one pool open at once from one IP address (each holds a connection,
        /// counted in `maxConnectionsPerIP` too); past it a new one is answered 429.
        public var maxStreamsPerIP: Int
        /// The `Host` names answered; nil answers any (a library default; Gatehouse always sets one).
        public var allowedHosts: HostAllowList?

        public init(
            host: String = "127.0.0.1",
            port: Int = 8080,
            threadCount: Int = ProcessInfo.processInfo.activeProcessorCount,
            connectionTimeout: Int = 30,
            headerTimeout: Int = 10,
            maxBodyBytes: Int = 1 << 20,
            maxHeaderBytes: Int = 32 << 10,
            maxConnections: Int = 4096,
            maxConnectionsPerIP: Int = 64,
            maxStreams: Int = 1024,
            maxStreamsPerIP: Int = 16,
            allowedHosts: HostAllowList? = nil
        ) {
            self.host = host
            self.port = port
            self.threadCount = threadCount
            self.connectionTimeout = connectionTimeout
            self.headerTimeout = headerTimeout
            self.maxBodyBytes = maxBodyBytes
            self.maxHeaderBytes = maxHeaderBytes
            self.maxConnections = maxConnections
            self.maxConnectionsPerIP = maxConnectionsPerIP
            self.maxStreams = maxStreams
            self.maxStreamsPerIP = maxStreamsPerIP
            self.allowedHosts = allowedHosts
        }
    }
}

extension HTTPServer.Configuration {
    /// The slow-client limits `ConnectionRegistry` enforces. Making room starts at 15/16 of
    /// `maxConnections` (3,840 of 4,096): the last sixteenth is headroom, because a cut connection
    /// keeps its MHD slot until MHD's poll sees it go and MHD splits the limit across its threads,
    /// and a thread at its share stops accepting.
    var slowConnectionLimits: ConnectionRegistry.Limits {
        ConnectionRegistry.Limits(
            headerDeadline: .seconds(headerTimeout),
            keepAliveDeadline: .seconds(connectionTimeout),
            evictionThreshold: maxConnections - max(1, maxConnections / 16))
    }
}
