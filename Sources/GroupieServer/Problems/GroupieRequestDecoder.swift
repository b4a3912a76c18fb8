import Foundation
import Hummingbird

/// Decodes JSON bodies strictly: a size bound, and problem documents that say what was wrong.
public struct GroupieRequestDecoder: RequestDecoder {
    /// Every JSON body of the API is small; anything larger is a mistake or an attack.
    static let maxBodySize = 64 * 1024

    public func decode<T: Decodable>(_ type: T.Type, from request: Request, context: some RequestContext) async throws -> T {
        if let contentType = request.headers[.contentType], !Self.isJSON(contentType) {
            throw Problem(.unsupportedMediaType, code: "unsupported-media-type", detail: "The body is sent as application/json, not \(contentType.prefix(100)).")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Self.maxBodySize)
        } catch {
            throw Problem(.contentTooLarge, code: "body-too-large", detail: "The JSON body is larger than \(Self.maxBodySize / 1024) KiB.")
        }
        return try Self.decode(type, from: Data(buffer: buffer))
    }

    /// `application/json`, or a `+json` type such as `application/merge-patch+json`, with any
    /// parameters (a charset). A request without a Content-Type is read as JSON too.
    static func isJSON(_ contentType: String) -> Bool {
        let type = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json"))
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if data.isEmpty {
            throw Problem.badRequest("malformed-json", "The request needs a JSON body.")
        }
        // JSON between systems is UTF-8 (RFC 8259); Foundation would also read UTF-16 and
        // UTF-32, which the check for names given twice does not. Their ASCII is UTF-8 with
        // zero bytes between, and JSON in UTF-8 has no zero byte.
        guard !data.contains(0), String(data: data, encoding: .utf8) != nil else {
            throw Problem.badRequest("malformed-json", "The body is not JSON in UTF-8.")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
        } catch {
            throw Problem.badRequest("malformed-json", "The body is not valid JSON.")
        }
        if let duplicate = Self.duplicateField(in: data) {
            throw Problem(.unprocessableContent, code: "duplicate-field", detail: "The field '\(duplicate.prefix(64))' is given twice in one object.")
        }
        if let body = type as? any StrictRequestBody.Type {
            guard let fields = object as? [String: Any] else {
                throw Problem(.unprocessableContent, code: "invalid-body", detail: "The body must be a JSON object.")
            }
            let unknown = Set(fields.keys).subtracting(body.fields).sorted()
            if !unknown.isEmpty {
                throw Problem(
                    .unprocessableContent, code: "unknown-field",
                    detail: "This request has no field \(unknown.map { "'\($0)'" }.joined(separator: ", ")); its fields are \(body.fields.sorted().joined(separator: ", "))."
                )
            }
        }
        do {
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .iso8601
            return try decoder.decode(type, from: data)
        } catch let error as DecodingError {
            throw Problem(.unprocessableContent, code: "invalid-field", detail: Self.describe(error))
        } catch let problem as Problem {
            throw problem
        }
    }

    /// The first name given twice in one object of `data`, which is valid JSON: readers differ
    /// on which of the two values counts (Groupie's took the first, many proxies the last), so
    /// such a body is refused rather than read one way here and another elsewhere. Names are
    /// compared as decoded (`"a"` and `"\u0061"` are one name).
    static func duplicateField(in data: Data) -> String? {
        let bytes = [UInt8](data)
        // Per open container: the names of an object so far, nil for an array; and whether the
        // next string is a name.
        var names: [Set<String>?] = []
        var expectsName = false
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                names.append([])
                expectsName = true
            case UInt8(ascii: "["):
                names.append(nil)
                expectsName = false
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                _ = names.popLast()
                expectsName = false
            case UInt8(ascii: ","):
                expectsName = names.last.map { $0 != nil } ?? false
            case UInt8(ascii: "\""):
                let start = index
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
                }
                guard index < bytes.count else { return nil }
                if expectsName, let last = names.indices.last, names[last] != nil {
                    let raw = bytes[start...index]
                    let name =
                        raw.contains(UInt8(ascii: "\\"))
                        ? (try? JSONSerialization.jsonObject(with: Data(raw), options: [.fragmentsAllowed]) as? String) ?? String(decoding: raw, as: UTF8.self)
                        : String(decoding: raw.dropFirst().dropLast(), as: UTF8.self)
                    // In place: a copy of the set per name would make a body of many names slow.
                    guard names[last]?.insert(name).inserted == true else { return name }
                    expectsName = false
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            codingPath.isEmpty ? "the body" : "'" + codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") + "'"
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "The field '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))' is required."
        case .typeMismatch(let type, let context):
            return "\(path(context.codingPath)) must be \(Self.name(of: type))."
        case .valueNotFound(let type, let context):
            return "\(path(context.codingPath)) must be \(Self.name(of: type)), not null."
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "The body does not have the expected fields."
        }
    }

    static func name(of type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "a whole number"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        default: type is any Collection.Type ? "a list" : "an object"
        }
    }
}

/// A JSON request body whose fields are checked: a field the API does not know is an error,
/// not something silently ignored.
protocol StrictRequestBody: Decodable {
    static var fields: Set<String> { get }
}
