import Foundation
import NIOCore

/// Groupie's one reader of `multipart/form-data` (RFC 7578), for a visitor's photo and for the
/// staff's picture uploads: the first file field as it streams by, holding no more of it than
/// one buffer and a delimiter's length, the file's name, and the form's small text fields.
///
/// Written for these jobs instead of taking a general parser (MultipartKit 4 keeps a part's
/// header lines whole, however long, and traps on an empty boundary): a form is a file and a
/// field or two, so a part's headers are bounded (4 KiB, 16 lines, ASCII names), parts are few,
/// a text field is at most 4 KiB, and anything else is a 400 `invalid-form`, never a trap.
final class FormFileExtractor {
    static let maximumHeaderBytes = 4 * 1024
    static let maximumHeaderLines = 16
    static let maximumParts = 16
    static let maximumPreambleBytes = 4 * 1024
    static let maximumFieldBytes = 4 * 1024

    private enum Part {
        case file
        case field(String)
        case skipped
    }

    private enum State {
        case preamble
        /// Right after a delimiter: `--` ends the form, CRLF starts a part's headers.
        case afterDelimiter
        case headers
        case body(Part)
        case done
    }

    /// CRLF, `--` and the boundary: what ends every part. The body is read as if it began with
    /// CRLF, so that the first delimiter is found the same way.
    private let delimiter: [UInt8]
    private var state = State.preamble
    private var pending: [UInt8] = [0x0D, 0x0A]
    private var preambleBytes = 0
    private var parts = 0
    private var fileDone = false
    private var fileBytes = Data()
    private(set) var sawFile = false
    /// The file field's name for the file, as the browser gave it.
    private(set) var fileName: String?
    /// The text fields, the first of each name; their values as UTF-8.
    private(set) var fields: [String: String] = [:]
    private var fieldBytes: [UInt8] = []

    /// Nil for any content type but `multipart/form-data`; 400 for a missing or malformed boundary.
    init?(contentType: String) throws {
        let parts = contentType.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.first?.lowercased() == "multipart/form-data" else { return nil }
        guard var boundary = parts.dropFirst().first(where: { $0.lowercased().hasPrefix("boundary=") })?.dropFirst("boundary=".count) else {
            throw Self.invalid("A multipart/form-data body needs a boundary.")
        }
        if boundary.count >= 2, boundary.hasPrefix("\""), boundary.hasSuffix("\"") { boundary = boundary.dropFirst().dropLast() }
        // RFC 2046: 1 to 70 characters of a small set, not ending with a space.
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)
        guard (1...70).contains(boundary.utf8.count), boundary.utf8.allSatisfy(allowed.contains), boundary.last != " " else {
            throw Self.invalid("The multipart/form-data boundary must be 1 to 70 letters, digits or ' ( ) + _ , - . / : = ?.")
        }
        delimiter = Array("\r\n--".utf8) + Array(boundary.utf8)
    }

    static func invalid(_ detail: String) -> Problem {
        Problem.badRequest("invalid-form", detail)
    }

    func feed(_ buffer: ByteBuffer) throws {
        pending.append(contentsOf: buffer.readableBytesView)
        var start = 0
        defer { pending.removeFirst(start) }
        while true {
            switch state {
            case .done:
                start = pending.count  // the epilogue is ignored
                return
            case .preamble:
                if let at = Self.find(delimiter, in: pending, from: start) {
                    preambleBytes += at - start
                    guard preambleBytes <= Self.maximumPreambleBytes else { throw Self.invalid("The form does not start with its boundary.") }
                    start = at + delimiter.count
                    state = .afterDelimiter
                } else {
                    let keep = min(pending.count - start, delimiter.count - 1)
                    preambleBytes += pending.count - start - keep
                    guard preambleBytes <= Self.maximumPreambleBytes else { throw Self.invalid("The form does not start with its boundary.") }
                    start = pending.count - keep
                    return
                }
            case .afterDelimiter:
                // RFC 2046 allows spaces and tabs after a boundary, before its line break.
                while start < pending.count, pending[start] == 0x20 || pending[start] == 0x09 { start += 1 }
                guard pending.count - start >= 2 else { return }
                if pending[start] == 0x2D, pending[start + 1] == 0x2D {
                    state = .done
                } else if pending[start] == 0x0D, pending[start + 1] == 0x0A {
                    // The CRLF stays: the header block is found as what lies between it and CRLF CRLF.
                    parts += 1
                    guard parts <= Self.maximumParts else { throw Self.invalid("The form has more than \(Self.maximumParts) parts.") }
                    state = .headers
                } else {
                    throw Self.invalid("A boundary of the form is followed by neither a line break nor '--'.")
                }
            case .headers:
                guard let end = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: pending, from: start) else {
                    guard pending.count - start <= Self.maximumHeaderBytes + 4 else {
                        throw Self.invalid("A part of the form has headers over \(Self.maximumHeaderBytes / 1024) KiB; a file name is at most a few hundred characters.")
                    }
                    return
                }
                guard end - start <= Self.maximumHeaderBytes + 2 else {
                    throw Self.invalid("A part of the form has headers over \(Self.maximumHeaderBytes / 1024) KiB; a file name is at most a few hundred characters.")
                }
                let block = end > start + 2 ? Array(pending[(start + 2)..<end]) : []
                let disposition = try Self.disposition(headers: block)
                start = end + 4
                if let file = disposition.fileName {
                    if !fileDone { fileName = file }
                    state = .body(fileDone ? .skipped : .file)
                } else if let name = disposition.name, fields[name] == nil {
                    fieldBytes.removeAll(keepingCapacity: true)
                    state = .body(.field(name))
                } else {
                    state = .body(.skipped)
                }
            case .body(let part):
                let found = Self.find(delimiter, in: pending, from: start)
                let end = found ?? max(start, pending.count - (delimiter.count - 1))
                switch part {
                case .file:
                    if end > start { fileBytes.append(contentsOf: pending[start..<end]) }
                    sawFile = true
                    if found != nil { fileDone = true }
                case .field(let name):
                    fieldBytes.append(contentsOf: pending[start..<end])
                    guard fieldBytes.count <= Self.maximumFieldBytes else {
                        throw Self.invalid("The form's field '\(name.prefix(64))' is over \(Self.maximumFieldBytes / 1024) KiB.")
                    }
                    if found != nil { fields[name] = String(decoding: fieldBytes, as: UTF8.self) }
                case .skipped:
                    break
                }
                guard let found else {
                    start = end
                    return
                }
                start = found + delimiter.count
                state = .afterDelimiter
            }
        }
    }

    /// At the end of the body: a form must end with its closing boundary.
    func finish() throws {
        guard case .done = state else { throw Self.invalid("The form ends before its closing boundary.") }
    }

    func takeFileBytes() -> Data {
        defer { fileBytes.removeAll(keepingCapacity: true) }
        return fileBytes
    }

    /// What a part's `Content-Disposition` says: its field's name and, for a file field, the
    /// file's name (`filename*=` makes a file field too, its name not read). Header names are
    /// ASCII tokens; other headers are not interpreted.
    static func disposition(headers block: [UInt8]) throws -> (name: String?, fileName: String?) {
        guard !block.isEmpty else { return (nil, nil) }
        let lines = block.split(separator: 0x0A, omittingEmptySubsequences: false).map { $0.last == 0x0D ? $0.dropLast() : $0 }
        guard lines.count <= maximumHeaderLines else { throw invalid("A part of the form has more than \(maximumHeaderLines) header lines.") }
        var result: (name: String?, fileName: String?) = (nil, nil)
        for line in lines {
            guard let colon = line.firstIndex(of: 0x3A), colon > line.startIndex else { throw invalid("A header line of the form has no name.") }
            let name = line[line.startIndex..<colon]
            guard name.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw invalid("A header name of the form is not plain ASCII.") }
            guard String(decoding: name, as: UTF8.self).lowercased() == "content-disposition" else { continue }
            for (key, value) in parameters(String(decoding: line[(colon + 1)...], as: UTF8.self)) {
                switch key {
                case "name": result.name = value
                case "filename": result.fileName = value
                case "filename*": result.fileName = result.fileName ?? ""
                default: break
                }
            }
        }
        return result
    }

    /// The `key=value` parameters after a header value's first `;`, keys lowercased, quoted
    /// values unquoted (a `;` inside quotes is part of the value).
    static func parameters(_ value: String) -> [(String, String)] {
        var pieces: [String] = [], current = "", quoted = false, escaped = false
        for character in value {
            if escaped { current.append(character); escaped = false; continue }
            if quoted, character == "\\" { escaped = true; continue }
            if character == "\"" { quoted.toggle(); current.append(character); continue }
            if character == ";", !quoted { pieces.append(current); current = ""; continue }
            current.append(character)
        }
        pieces.append(current)
        return pieces.dropFirst().compactMap { piece in
            let pair = piece.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, !pair[0].isEmpty else { return nil }
            var text = pair[1]
            if text.count >= 2, text.hasPrefix("\""), text.hasSuffix("\"") { text = String(text.dropFirst().dropLast()) }
            return (pair[0].lowercased(), text)
        }
    }

    /// Where `needle` first occurs in `haystack` at or after `from`.
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard !needle.isEmpty, haystack.count - from >= needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { hay -> Int? in
            needle.withUnsafeBufferPointer { pin -> Int? in
                guard let base = hay.baseAddress, let first = pin.baseAddress else { return nil }
                var index = from
                let last = hay.count - pin.count
                while index <= last {
                    guard let found = memchr(base + index, Int32(pin[0]), last - index + 1) else { return nil }
                    let at = found.assumingMemoryBound(to: UInt8.self) - UnsafeMutablePointer(mutating: base)
                    if memcmp(base + at, first, pin.count) == 0 { return at }
                    index = at + 1
                }
                return nil
            }
        }
    }
}
