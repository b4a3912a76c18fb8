import Foundation
import GRDB
import PostgresNIO

/// Moving from one instance on SQLite to several on PostgreSQL: every row of a SQLite database
/// copied into an empty PostgreSQL database, in one transaction. The venue numbers are not
/// copied but made again by the triggers, as the events arrive in order.
extension PostgresStore {
    /// How a column is read from SQLite and bound for PostgreSQL.
    enum ColumnKind: Sendable {
        case text, integer, real, bytes, boolean
    }

    /// The tables in an order that keeps every foreign key satisfied, with their columns.
    static let copiedTables: [(name: String, order: String, columns: [(String, ColumnKind)])] = [
        ("player", "created_at, id", [("id", .text), ("name", .text), ("language", .text), ("token_hash", .bytes), ("created_at", .real)]),
        ("play_group", "created_at, id", [
            ("id", .text), ("venue_id", .text), ("name", .text), ("join_code", .text), ("creator_id", .text), ("created_at", .real),
            ("joinable_until", .real), ("closed_at", .real), ("closed_reason", .text),
        ]),
        ("membership", "id", [("group_id", .text), ("player_id", .text), ("joined_at", .real), ("left_at", .real)]),
        ("photo", "created_at, id", [
            ("id", .text), ("group_id", .text), ("photographer_id", .text), ("mission_id", .text), ("task_id", .text), ("blob", .text),
            ("format", .text), ("width", .integer), ("height", .integer), ("created_at", .real), ("focus_x", .real), ("focus_y", .real),
        ]),
        ("hidden_photo", "created_at, id", [
            ("id", .text), ("group_id", .text), ("photographer_id", .text), ("mission_id", .text), ("task_id", .text), ("blob", .text),
            ("format", .text), ("width", .integer), ("height", .integer), ("created_at", .real), ("focus_x", .real), ("focus_y", .real),
            ("hidden_at", .real), ("hidden_reason", .text), ("held", .boolean),
        ]),
        ("task_choice", "group_id, mission_id, task_id", [("group_id", .text), ("mission_id", .text), ("task_id", .text), ("photo_id", .text)]),
        ("upload_key", "created_at, key", [
            ("player_id", .text), ("group_id", .text), ("key", .text), ("photo_id", .text), ("mission_id", .text), ("task_id", .text),
            ("created_at", .real),
        ]),
        ("group_event", "group_id, seq", [("group_id", .text), ("seq", .integer), ("type", .text), ("data", .text), ("created_at", .real)]),
        ("collage", "group_id, mission_id", [
            ("group_id", .text), ("mission_id", .text), ("photo_ids", .text), ("key", .text), ("width", .integer), ("height", .integer),
            ("created_at", .real),
        ]),
        ("staff", "email", [("id", .text), ("email", .text), ("password_hash", .text), ("role", .text), ("created_at", .real)]),
        ("staff_venue", "staff_id, venue_id", [("staff_id", .text), ("venue_id", .text)]),
        ("staff_session", "created_at", [("token_hash", .bytes), ("staff_id", .text), ("csrf_token", .text), ("created_at", .real), ("expires_at", .real)]),
        ("staff_audit", "id", [
            ("at", .real), ("staff_email", .text), ("venue_id", .text), ("action", .text), ("subject", .text), ("reason", .text),
        ]),
    ]

    /// Copies every row of `source` into this database, which must hold no player, group or
    /// member of staff yet; returns the rows copied per table. Nothing is copied when anything fails.
    public func importRows(from source: GroupieDatabase) async throws -> [(table: String, rows: Int)] {
        try await write { connection in
            let existing = try await connection.value(
                "SELECT (SELECT COUNT(*) FROM player) + (SELECT COUNT(*) FROM play_group) + (SELECT COUNT(*) FROM staff)", as: Int.self, logger: logger
            ) ?? 0
            guard existing == 0 else { throw PostgresStoreError.notEmpty }
            var copied: [(table: String, rows: Int)] = []
            for table in Self.copiedTables {
                let names = table.columns.map(\.0).joined(separator: ", ")
                var count = 0
                var offset = 0
                while true {
                    // A page at a time: a large database does not have to fit in memory.
                    let rows = try await source.writer.read { db in
                        try Row.fetchAll(db, sql: "SELECT \(names) FROM \(table.name) ORDER BY \(table.order) LIMIT 1000 OFFSET \(offset)")
                    }
                    if rows.isEmpty { break }
                    for row in rows {
                        var bindings = PostgresBindings(capacity: table.columns.count)
                        for (index, (_, kind)) in table.columns.enumerated() {
                            try Self.bind(row[index], as: kind, into: &bindings)
                        }
                        let placeholders = (1...table.columns.count).map { "$\($0)" }.joined(separator: ", ")
                        try await connection.query(PostgresQuery(unsafeSQL: "INSERT INTO \(table.name) (\(names)) VALUES (\(placeholders))", binds: bindings), logger: logger)
                    }
                    count += rows.count
                    offset += rows.count
                }
                copied.append((table.name, count))
            }
            return copied
        }
    }

    private static func bind(_ value: DatabaseValue, as kind: ColumnKind, into bindings: inout PostgresBindings) throws {
        switch kind {
        case .text: bindings.append(String.fromDatabaseValue(value))
        case .integer: bindings.append(Int.fromDatabaseValue(value))
        case .real: bindings.append(Double.fromDatabaseValue(value))
        case .bytes: try bindings.append(Data.fromDatabaseValue(value))
        case .boolean: bindings.append(Bool.fromDatabaseValue(value))
        }
    }
}
