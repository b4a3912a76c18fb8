import Foundation
import GroupieCore

/// What `groupie import` takes from a file, decided once for every backend: only the rows that
/// belong to the file's own groups and their players, each value checked before anything is
/// written. An export is a file anyone may have edited; the database it goes into holds other
/// venues, their staff and their photos.
///
/// - The file's groups are its `play_group` rows. Every membership, photo, choice, answer,
///   upload key, event and collage must be of one of them, and every player a row names must
///   be a member of one: a row of another group (the database's other venues') refuses the file.
/// - A player is copied only when a membership of the file's groups names them; one the
///   database has already (who played at two venues) is kept as it is.
/// - Staff sessions are never copied. Staff accounts, their venues and their audit lines are
///   copied only for the accounts the operator names (`--staff`), and an account the database
///   has already is refused rather than merged.
/// - Every value is checked: ids well formed, a photo's blob a full SHA-256 in hex, formats on
///   the allow-list, times within Groupie's years, texts without control characters.
///
/// The first row refused is named (table, position and what is wrong) and nothing is written.
public struct ImportFilter: Sendable {
    /// The accounts the operator asked for, by e-mail.
    public var staff: Set<String>
    public var now: Date

    public init(staff: Set<String> = [], now: Date = Date()) {
        self.staff = Set(staff.map { $0.lowercased() })
        self.now = now
    }

    /// The rows of `source` to write, table by table in `CopiedTable.all`'s order.
    public func admittedRows(from source: some RowSource) async throws -> [(table: CopiedTable, rows: [[StoredValue]])] {
        var read: [String: [[StoredValue]]] = [:]
        try await source.copyRows(venue: nil, page: 1000) { table, rows in
            read[table.name, default: []] += rows
        }
        return try admitted(read)
    }

    /// The rows to write of `read` (every table's rows by the table's name).
    public func admitted(_ read: [String: [[StoredValue]]]) throws -> [(table: CopiedTable, rows: [[StoredValue]])] {
        var context = Context(filter: self)
        // What the file's groups are, and who was ever a member of one, before any row is judged.
        if let groups = CopiedTable.named("play_group") {
            for (index, row) in (read[groups.name] ?? []).enumerated() {
                let values = Row(table: groups, index: index, values: row)
                context.groups.insert(try values.id("id"))
                context.venues.insert(try values.identifier("venue_id"))
            }
        }
        if let memberships = CopiedTable.named("membership") {
            for (index, row) in (read[memberships.name] ?? []).enumerated() {
                let values = Row(table: memberships, index: index, values: row)
                try values.require(context.groups.contains(try values.id("group_id")), "its group is not one of the file's groups")
                context.members.insert(try values.id("player_id"))
            }
        }
        if let staff = CopiedTable.named("staff") {
            for (index, row) in (read[staff.name] ?? []).enumerated() {
                let values = Row(table: staff, index: index, values: row)
                if let email = try values.text("email", limit: 320)?.lowercased(), self.staff.contains(email) {
                    context.staffIds.insert(try values.id("id"))
                    context.staffEmails.insert(email)
                }
            }
            let missing = self.staff.subtracting(context.staffEmails)
            guard missing.isEmpty else { throw ImportRefusal.missingStaff(missing.sorted()) }
        }
        return try CopiedTable.all.map { table in
            let rows = try (read[table.name] ?? []).enumerated().compactMap { index, row in
                try context.admit(Row(table: table, index: index, values: row)) ? row : nil
            }
            return (table, rows)
        }
    }

    /// What the rows read so far say, and the judgement of each row.
    struct Context {
        let filter: ImportFilter
        var groups: Set<String> = []
        var venues: Set<String> = []
        var members: Set<String> = []
        var staffIds: Set<String> = []
        var staffEmails: Set<String> = []
        var photos: Set<String> = []

        /// Whether `row` is copied: false for a row left out on purpose, a refusal for one that
        /// must not be there.
        mutating func admit(_ row: Row) throws -> Bool {
            // The values of a row that is copied: one left out (a session) is not judged.
            guard try admits(row) else { return false }
            try row.checkValues(now: filter.now)
            return true
        }

        private mutating func admits(_ row: Row) throws -> Bool {
            switch row.table.name {
            case "player":
                return members.contains(try row.id("id"))
            case "play_group":
                _ = try row.text("join_code", limit: 32)
                _ = try row.optionalId("creator_id")
                _ = try row.optionalIdentifier("batch_id")
                return true
            case "membership":
                return true
            case "photo", "hidden_photo":
                try row.inFileGroup(groups)
                let photo = try row.id("id")
                photos.insert(photo)
                try row.require(members.contains(try row.id("photographer_id")), "its photographer was never a member of the file's groups")
                try row.require(BlobStore.isBlobName(try row.text("blob") ?? ""), "its blob is not a SHA-256 in hex")
                try row.require(Self.formats.contains(try row.text("format") ?? ""), "its format is not one of \(Self.formats.sorted())")
                for column in ["width", "height"] {
                    guard case .integer(let size) = row.value(column) else { throw row.refusal("its \(column) is not a number") }
                    try row.require((1...100_000).contains(size), "its \(column) \(size) is not a photo's")
                }
                _ = try row.optionalIdentifier("mission_id")
                _ = try row.optionalIdentifier("task_id")
                return true
            case "task_choice":
                try row.inFileGroup(groups)
                try row.require(photos.contains(try row.id("photo_id")), "its photo is not one of the file's")
                _ = try row.identifier("mission_id")
                _ = try row.identifier("task_id")
                return true
            case "task_answer":
                try row.inFileGroup(groups)
                try row.require(members.contains(try row.id("player_id")), "its player was never a member of the file's groups")
                _ = try row.identifier("mission_id")
                _ = try row.identifier("task_id")
                return true
            case "upload_key":
                try row.inFileGroup(groups)
                try row.require(members.contains(try row.id("player_id")), "its player was never a member of the file's groups")
                if let photo = try row.optionalId("photo_id") { try row.require(photos.contains(photo), "its photo is not one of the file's") }
                _ = try row.text("key", limit: 200)
                return true
            case "group_event":
                try row.inFileGroup(groups)
                let kind = try row.text("type") ?? ""
                try row.require(GroupEventKind(rawValue: kind) != nil, "its type '\(kind.prefix(40))' is not an event's")
                let text = try row.text("data", limit: 1_000_000) ?? ""
                try row.require((try? JSONSerialization.jsonObject(with: Data(text.utf8))) is [String: Any], "its data is not a JSON object")
                // A NUL escaped in JSON, which no text may hold and PostgreSQL's JSON refuses.
                try row.require(!text.lowercased().contains("\\u0000"), "its data holds the control character U+0000")
                return true
            case "collage":
                try row.inFileGroup(groups)
                _ = try row.identifier("mission_id")
                // The key names the collage's file: letters and digits only.
                let key = try row.text("key") ?? ""
                try row.require(!key.isEmpty && key.utf8.count <= 128 && key.utf8.allSatisfy(Row.isAlphanumeric), "its key is not a collage's")
                let ids = (try row.text("photo_ids", limit: 10_000) ?? "").split(separator: ",", omittingEmptySubsequences: false)
                try row.require(ids.allSatisfy { !$0.isEmpty && $0.utf8.count <= 64 && $0.utf8.allSatisfy { Row.isAlphanumeric($0) || $0 == 0x2d } }, "its photo ids are not ids")
                return true
            case "staff":
                guard let email = try row.text("email", limit: 320)?.lowercased(), staffEmails.contains(email) else { return false }
                let role = try row.text("role") ?? ""
                try row.require(StaffRole(rawValue: role) != nil, "its role '\(role.prefix(20))' is not one of \(StaffRole.allCases.map(\.rawValue))")
                return true
            case "staff_venue":
                guard staffIds.contains(try row.id("staff_id")) else { return false }
                return venues.contains(try row.identifier("venue_id"))
            case "staff_session":
                return false
            case "staff_audit":
                // An account's lines come with the account, for the file's venues only: no line
                // is written in the name of someone the operator did not name.
                guard let email = try row.text("staff_email", limit: 320)?.lowercased(), staffEmails.contains(email) else { return false }
                // A line of no venue (an admin's) comes with its account.
                return try row.optionalIdentifier("venue_id").map(venues.contains) ?? true
            default:
                throw row.refusal("its table is not one an import copies")
            }
        }

        static let formats: Set<String> = ["jpeg", "png", "webp", "heif"]
    }

    /// One row of the file, by column name.
    struct Row {
        let table: CopiedTable
        let index: Int
        let values: [StoredValue]

        func value(_ column: String) -> StoredValue {
            guard let position = table.columns.firstIndex(where: { $0.name == column }), position < values.count else { return .null }
            return values[position]
        }

        func refusal(_ reason: String) -> ImportRefusal {
            let key = ["id", "group_id", "email", "key"].lazy.compactMap { column -> String? in
                if case .text(let text) = value(column) { return "\(column) \(text.prefix(64))" }
                return nil
            }.first
            return .row(table: table.name, number: index + 1, key: key, reason: reason)
        }

        func require(_ condition: Bool, _ reason: @autoclosure () -> String) throws {
            guard condition else { throw refusal(reason()) }
        }

        /// A text column, at most `limit` bytes, without control characters; nil when NULL.
        func text(_ column: String, limit: Int = 4_000) throws -> String? {
            switch value(column) {
            case .null: return nil
            case .text(let text):
                try require(text.utf8.count <= limit, "its \(column) is longer than \(limit) bytes")
                return text
            default: throw refusal("its \(column) is not a text")
            }
        }

        /// An id: 1 to 64 letters, digits and `-` (the hex ids of today, the UUIDs of earlier versions).
        func id(_ column: String) throws -> String {
            guard let id = try optionalId(column) else { throw refusal("its \(column) is missing") }
            return id
        }

        func optionalId(_ column: String) throws -> String? {
            guard let id = try text(column) else { return nil }
            try require(!id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { Self.isAlphanumeric($0) || $0 == 0x2d }, "its \(column) is not an id")
            return id
        }

        /// A venue's, mission's or task's id as mission files give them: letters, digits, `-`,
        /// `_` and `.`, not starting with `.`.
        func identifier(_ column: String) throws -> String {
            guard let id = try optionalIdentifier(column) else { throw refusal("its \(column) is missing") }
            return id
        }

        func optionalIdentifier(_ column: String) throws -> String? {
            guard let id = try text(column) else { return nil }
            let allowed = id.utf8.allSatisfy { Self.isAlphanumeric($0) || $0 == 0x2d || $0 == 0x5f || $0 == 0x2e }
            try require(!id.isEmpty && id.utf8.count <= 128 && allowed && !id.hasPrefix("."), "its \(column) is not an id")
            return id
        }

        func inFileGroup(_ groups: Set<String>) throws {
            try require(groups.contains(try id("group_id")), "its group is not one of the file's groups")
        }

        static func isAlphanumeric(_ byte: UInt8) -> Bool {
            (0x30...0x39).contains(byte) || (0x41...0x5a).contains(byte) || (0x61...0x7a).contains(byte)
        }

        /// Every value: texts without control characters (a NUL breaks PostgreSQL), times
        /// within Groupie's years.
        func checkValues(now: Date) throws {
            for (position, column) in table.columns.enumerated() where position < values.count {
                switch values[position] {
                case .text(let text):
                    let control = text.unicodeScalars.first { $0.value < 0x20 && $0 != "\n" && $0 != "\t" || $0.value == 0x7f }
                    try require(control == nil, "its \(column.name) holds the control character U+\(String(format: "%04X", control?.value ?? 0))")
                case .real(let seconds) where Self.isTime(column.name):
                    try require(Self.isGroupieTime(seconds, now: now), "its \(column.name) is not a time of Groupie's (\(seconds))")
                case .integer(let number) where column.kind == .real && Self.isTime(column.name):
                    try require(Self.isGroupieTime(Double(number), now: now), "its \(column.name) is not a time of Groupie's (\(number))")
                default:
                    continue
                }
            }
        }

        static func isTime(_ column: String) -> Bool {
            column.hasSuffix("_at") || column == "at" || column == "joinable_until"
        }

        /// From 2020-01-01, before any Groupie stored anything, to ten years ahead: a group made
        /// twenty years ago, which the next retention sweep would take, or a time no clock
        /// gives, is not one.
        static func isGroupieTime(_ seconds: Double, now: Date) -> Bool {
            seconds.isFinite && seconds >= 1_577_836_800 && seconds <= now.timeIntervalSince1970 + 10 * 366 * 86_400
        }
    }
}

/// An import refused before anything was written.
public enum ImportRefusal: Error, CustomStringConvertible, Equatable {
    case row(table: String, number: Int, key: String?, reason: String)
    case missingStaff([String])
    case staffExists(String)

    public var description: String {
        switch self {
        case .row(let table, let number, let key, let reason):
            "Refused: row \(number) of \(table)\(key.map { " (\($0))" } ?? ""): \(reason). Nothing was copied."
        case .missingStaff(let emails):
            "The file holds no staff account \(emails.joined(separator: ", ")): name only accounts of the file with --staff. Nothing was copied."
        case .staffExists(let email):
            "The database has another staff account under \(email) already: leave it out of --staff. Nothing was copied."
        }
    }
}

extension ImportFilter {
    /// The ids of the groups among `admitted` rows: what an import must not find there already.
    public static func groupIds(of admitted: [(table: CopiedTable, rows: [[StoredValue]])]) -> [String] {
        admitted.first { $0.table.name == "play_group" }?.rows.compactMap { row -> String? in
            if case .text(let id) = row.first { return id }
            return nil
        } ?? []
    }
}

extension CopiedTable {
    public static func named(_ name: String) -> CopiedTable? {
        all.first { $0.name == name }
    }
}
