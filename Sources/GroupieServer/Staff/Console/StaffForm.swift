import Foundation
import Hummingbird

/// A staff form: `application/x-www-form-urlencoded`, 16 KiB at most (`limit` for the few that
/// carry more, such as a whole mission file), read by Hummingbird's `URLEncodedFormDecoder`.
/// A name is given once; the boxes ticked of a list are `name[]`, once for each.
struct StaffForm {
    private let fields: StaffFormFields
    static let maximumBytes = 16 * 1024

    init(_ request: Request, context: some RequestContext, limit: Int = maximumBytes) async throws {
        guard let type = request.headers[.contentType], type.lowercased().hasPrefix("application/x-www-form-urlencoded") else {
            throw Problem(.unsupportedMediaType, code: "unsupported-media-type", detail: "Staff forms are sent as application/x-www-form-urlencoded.")
        }
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch {
            throw Problem.tooLarge(limit: limit)
        }
        do {
            fields = try StaffFormFields.decode(String(buffer: body))
        } catch {
            throw Problem(.badRequest, code: "malformed-form", detail: "The form cannot be read: \(error).")
        }
        StaffFormMemory.current?.keep(fields)
    }

    subscript(_ name: String) -> String? { fields.text[name] }

    /// Every value given for `name[]`: the boxes ticked of a list.
    func values(_ name: String) -> [String] { fields.lists[name] ?? [] }

    func requireToken(of session: StaffSession) throws {
        guard session.accepts(formToken: fields.text["csrf"]) else {
            throw Problem(.forbidden, code: "csrf-token-mismatch", detail: "The form is out of date; reload the page and try again.")
        }
    }

    /// An action that ends something (a photo deleted for good, a group closed, an account
    /// removed) carries `confirm=yes`, from the checkbox beside its button.
    func requireConfirmation() throws {
        guard fields.text["confirm"] == "yes" else { throw Self.confirmationRequired }
    }

    static let confirmationRequired = Problem(
        .unprocessableContent, code: "confirmation-required", detail: "Tick the box beside the button to confirm."
    )

    /// The reason staff gave: required, trimmed, 200 characters at most.
    func reason() throws -> String {
        let reason = (fields.text["reason"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !reason.isEmpty, reason.count <= 200, reason.utf8.count <= 800 else {
            throw Problem(.unprocessableContent, code: "invalid-reason", detail: "Give a reason of 1 to 200 characters.")
        }
        return reason
    }
}

/// The fields of a staff form: each name's text, and each list's (`name[]=…`, repeated).
struct StaffFormFields: Decodable, Sendable, Equatable {
    var text: [String: String] = [:]
    var lists: [String: [String]] = [:]

    init(text: [String: String] = [:], lists: [String: [String]] = [:]) {
        (self.text, self.lists) = (text, lists)
    }

    /// Refuses a name given twice, a broken percent escape, a nested name (`a[b]=…`), a piece
    /// with no `=` and escapes that do not spell UTF-8. (The decoder would skip the piece and
    /// read the escapes as U+FFFD; no browser sends either, and a form is taken whole or not.)
    static func decode(_ body: String) throws -> StaffFormFields {
        guard body.split(separator: "&").allSatisfy({ $0.contains("=") }) else { throw Unreadable("a piece of it has no '='") }
        let fields = try URLEncodedFormDecoder().decode(StaffFormFields.self, from: body)
        let texts = fields.text.flatMap { [$0.key, $0.value] } + fields.lists.flatMap { [$0.key] + $0.value }
        guard !texts.contains(where: { $0.unicodeScalars.contains("\u{FFFD}") }) else { throw Unreadable("it holds bytes that are not UTF-8") }
        return fields
    }

    struct Unreadable: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Name.self)
        for name in container.allKeys {
            if let text = try? container.decode(String.self, forKey: name) {
                self.text[name.stringValue] = text
            } else {
                lists[name.stringValue] = try container.decode([String].self, forKey: name)
            }
        }
    }
}
