import Foundation
import GroupieCore
import Hummingbird

struct PlayerDocument: Encodable, Sendable {
    var id: String
    var name: String
    var language: String?
    var createdAt: Date

    init(_ player: Player) {
        id = player.id
        name = player.name
        language = player.language
        createdAt = player.createdAt
    }
}

struct CreatedPlayer: ResponseEncodable, Sendable {
    var player: PlayerDocument
    /// Shown once; the server keeps only its hash.
    var token: String
}

struct Me: ResponseEncodable, Sendable {
    var player: PlayerDocument
    var group: GroupSummary?
}

struct NewPlayer: StrictRequestBody {
    static let fields: Set<String> = ["name", "lang"]
    var name: String
    var lang: String?
}

/// `PATCH /me`: a field left out stays; `"lang": null` forgets the language; `"name": null` is 422.
struct PlayerChanges: StrictRequestBody {
    static let fields: Set<String> = ["name", "lang"]
    var name: String?
    var lang: String??

    enum CodingKeys: String, CodingKey { case name, lang }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        // A name can be changed, never removed: `"name": null` is refused.
        if container.contains(.name) { name = try container.decode(String.self, forKey: .name) }
        if container.contains(.lang) {
            lang = .some(try container.decodeNil(forKey: .lang) ? nil : try container.decode(String.self, forKey: .lang))
        }
    }
}

enum PlayerInput {
    static func name(_ raw: String, field: String = "name", limits: DisplayName.Limits = DisplayName.player) throws -> String {
        let detail: String
        switch DisplayName.validated(raw, limits: limits) {
        case .success(let name):
            return name
        case .failure(.empty):
            detail = "'\(field)' must not be empty."
        case .failure(.tooLong(let maximum)):
            detail = "'\(field)' may be at most \(maximum) characters."
        case .failure(.tooManyBytes(let maximum)):
            detail = "'\(field)' may be at most \(maximum) bytes of UTF-8."
        case .failure(.tooManyMarks(let maximum)):
            detail = "'\(field)' may have at most \(maximum) accents or marks on one character."
        case .failure(.forbiddenCharacter):
            detail = "'\(field)' must not contain control or invisible formatting characters."
        case .failure(.invisible):
            detail = "'\(field)' must contain at least one visible character."
        }
        throw Problem(.unprocessableContent, code: "invalid-name", detail: detail)
    }

    static func language(_ raw: String) throws -> String {
        guard LanguageCode.isWellFormed(raw) else {
            throw Problem(.unprocessableContent, code: "invalid-language", detail: "'lang' must be a language code such as 'sv' or 'en-GB'.")
        }
        return raw
    }
}
