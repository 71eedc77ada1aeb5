#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Serves regular files under a root directory, refusing anything that could escape it.
///
/// Files are read per request (they are small); `ETag` (size + mtime) and `Last-Modified`
/// let browsers revalidate with 304s.
public struct StaticFiles: Sendable {
    /// The root, resolved with `realpath` so symlinks are compared on their real location.
    private let root: String
    private let cacheControl: String

    public init(root: String, cacheControl: String = "public, max-age=3600") {
        self.root = Self.realPath(root) ?? root
        self.cacheControl = cacheControl
    }

    /// The file at `relativePath` (already percent-decoded, e.g. a route's `*` parameter), or nil
    /// (answer 404) for anything that is not a visible regular file inside the root: `..`,
    /// hidden dotfiles, backslashes, NUL, a leftover `%` (double encoding), directories and
    /// symlinks that resolve outside the root.
    public func response(for relativePath: String, request: Request) -> Response? {
        guard let segments = Self.safeSegments(relativePath),
            let resolved = Self.realPath(root + "/" + segments.joined(separator: "/")),
            resolved.hasPrefix(root + "/"),
            let file = Self.readRegularFile(resolved)
        else {
            return nil
        }
        let etag = "\"\(String(file.size, radix: 16))-\(String(file.modified, radix: 16))\""
        let lastModified = HTTPDate.format(file.modified)
        var headers: HTTPHeaders = [
            "ETag": etag,
            "Last-Modified": lastModified,
            "Cache-Control": cacheControl
        ]
        if Self.notModified(request, etag: etag, lastModified: lastModified) {
            return Response(status: 304, headers: headers)
        }
        headers.add("Content-Type", ContentType.forPath(resolved))
        return Response(status: 200, headers: headers, body: file.bytes)
    }

    /// Splits and vets a relative path; nil when any segment is unsafe.
    private static func safeSegments(_ path: String) -> [Substring]? {
        guard !path.utf8.contains(where: { $0 == 0 || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "%") }) else {
            return nil
        }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        guard !segments.isEmpty, !segments.contains(where: { $0.hasPrefix(".") }) else { return nil }
        return segments
    }

    /// RFC 9110 §13.1.2/§13.1.3: `If-None-Match` wins; `If-Modified-Since` is compared exactly.
    private static func notModified(_ request: Request, etag: String, lastModified: String) -> Bool {
        if let match = request.headers["If-None-Match"] {
            return match.split(separator: ",").contains { candidate in
                let tag = candidate.trimmingPrefix(" ").trimmingPrefix("W/")
                return tag == "*" || tag.elementsEqual(etag) || tag.trimmingSuffix(" ").elementsEqual(etag)
            }
        }
        return request.headers["If-Modified-Since"] == lastModified
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private struct File {
        let bytes: [UInt8]
        let size: Int
        let modified: Int
    }

    /// Opens without following a final symlink and reads the file if it is a regular one.
    private static func readRegularFile(_ path: String) -> File? {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var offset = 0
        while offset < size {
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress.map { $0 + offset }, size - offset)
            }
            guard count > 0 else { return nil }
            offset += count
        }
        #if canImport(Darwin)
            let modified = Int(info.st_mtimespec.tv_sec)
        #else
            let modified = Int(info.st_mtim.tv_sec)
        #endif
        return File(bytes: bytes, size: size, modified: modified)
    }
}

private extension Substring {
    func trimmingPrefix(_ prefix: String) -> Substring {
        hasPrefix(prefix) ? dropFirst(prefix.count) : self
    }

    func trimmingSuffix(_ suffix: String) -> Substring {
        hasSuffix(suffix) ? dropLast(suffix.count) : self
    }
}
