import Foundation
import GroupieContent
import GroupieImaging
import HTTPTypes
import Hummingbird
import Synchronization

/// The text files of `/assets/` (the web client's scripts, styles, translations, icons as SVG)
/// gzipped once each, again when a file changes, and sent so to a browser whose
/// `Accept-Encoding` takes gzip; every answer for such a file says `Vary: Accept-Encoding`.
/// Photos and other pictures are compressed already and go as they are.
final class CompressedAssets: Sendable {
    static let textExtensions: Set<String> = ["js", "mjs", "css", "html", "json", "svg", "txt", "webmanifest", "map"]
    /// Smaller files gain less than their gzip header costs.
    static let smallest = 512

    private struct Entry {
        var size: Int
        var modified: Double
        var gzipped: ByteBuffer?
    }

    private let entries = Mutex<[String: Entry]>([:])

    static func isText(_ path: String) -> Bool {
        guard let dot = path.lastIndex(of: ".") else { return false }
        return textExtensions.contains(path[path.index(after: dot)...].lowercased())
    }

    /// Whether `Accept-Encoding` takes gzip: `gzip` or `*` listed without `q=0`.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        var gzip: Bool?, any: Bool?
        for item in header.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            if coding == "gzip" || coding == "x-gzip" { gzip = quality > 0 } else if coding == "*" { any = quality > 0 }
        }
        return gzip ?? any ?? false
    }

    /// The file's gzip bytes, made when it is first asked for or has changed since; nil for a
    /// file too small to gain, or one that cannot be read. Blocking: run it on the file pool.
    func gzipped(file path: String) -> ByteBuffer? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
            let size = (attributes[.size] as? NSNumber)?.intValue,
            let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970
        else { return nil }
        if let entry = entries.withLock({ $0[path] }), entry.size == size, entry.modified == modified { return entry.gzipped }
        var gzipped: ByteBuffer?
        if size >= Self.smallest, let data = FileManager.default.contents(atPath: path), data.count == size,
            let bytes = Gzip.compress([UInt8](data)), bytes.count < size
        {
            gzipped = ByteBuffer(bytes: bytes)
        }
        entries.withLock { $0[path] = Entry(size: size, modified: modified, gzipped: gzipped) }
        return gzipped
    }

    /// The file middleware's answer for the text file at `path`, gzipped when the request takes
    /// it: the same headers, the gzip body and its length.
    func encode(_ response: Response, of path: String, for request: Request, fileIO: any BlockingWork) async throws -> Response {
        guard Self.isText(path), response.status == .ok || response.status == .notModified else { return response }
        var response = response
        response.headers[.vary] = "Accept-Encoding"
        guard response.status == .ok, request.headers[.range] == nil, Self.acceptsGzip(request.headers[.acceptEncoding]),
            let gzipped = try await fileIO.run({ self.gzipped(file: path) })
        else { return response }
        response.headers[.contentEncoding] = "gzip"
        response.headers[.contentLength] = String(gzipped.readableBytes)
        response.headers[.contentRange] = nil
        response.body = request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: gzipped)
        return response
    }
}
