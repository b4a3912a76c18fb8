import Foundation
import Hummingbird

/// A small `multipart/form-data` form read whole (bounded by `limit`): its text fields and its
/// one file, with the file's name as the browser gave it. For the staff's picture uploads,
/// whose forms carry the session's token beside the file.
struct MultipartForm {
    var fields: [String: String] = [:]
    var file: Data?
    var fileName: String?

    init(_ request: Request, limit: Int) async throws {
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/form-data"),
            let boundary = Self.boundary(type)
        else {
            throw Problem(.unsupportedMediaType, code: "unsupported-media-type", detail: "Pictures are sent as multipart/form-data.")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch {
            throw Problem.tooLarge(limit: limit)
        }
        let bytes = Data(buffer: body)
        let delimiter = Data("--".utf8) + Data(boundary.utf8)
        var parts: [Data] = []
        var position = bytes.startIndex
        while let found = bytes.range(of: delimiter, in: position..<bytes.endIndex) {
            if position != bytes.startIndex { parts.append(bytes[position..<found.lowerBound]) }
            position = found.upperBound
        }
        for part in parts.prefix(8) {
            // Each part: CRLF, headers, a blank line, the content, CRLF.
            guard let split = part.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let headers = String(decoding: part[part.startIndex..<split.lowerBound], as: UTF8.self)
            var content = part[split.upperBound..<part.endIndex]
            if content.suffix(2) == Data("\r\n".utf8) { content = content.dropLast(2) }
            guard let disposition = headers.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-disposition:") }),
                let name = Self.parameter("name", in: String(disposition))
            else { continue }
            if let fileName = Self.parameter("filename", in: String(disposition)) {
                if file == nil { (file, self.fileName) = (Data(content), fileName) }
            } else if fields[name] == nil, content.count <= 4096 {
                fields[name] = String(decoding: content, as: UTF8.self)
            }
        }
    }

    static func boundary(_ contentType: String) -> String? {
        guard let value = parameter("boundary", in: contentType), (1...70).contains(value.utf8.count) else { return nil }
        return value
    }

    /// `name="value"` (or `name=value`) among the `;`-separated parameters of a header.
    static func parameter(_ name: String, in header: String) -> String? {
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == name else { continue }
            var value = pair[1]
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }
}
