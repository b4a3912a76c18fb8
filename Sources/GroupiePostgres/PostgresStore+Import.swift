import Foundation
import GroupieStorage
import PostgresNIO

/// Moving from one instance on SQLite to several on PostgreSQL: every row of a SQLite database
/// (a whole one, or one venue's export) copied into a PostgreSQL database, in one transaction.
/// The venue numbers are not copied but made again by the triggers, as the events arrive in order.
extension PostgresStore {
    /// How a column is bound for PostgreSQL.
    enum ColumnKind: Sendable {
        case text, integer, real, bytes, boolean
    }

    /// The tables in an order that keeps every foreign key satisfied, with their columns, and
    /// whether another venue's import may have brought the same rows (players and staff).
    static let copiedTables: [(name: String, order: String, columns: [(String, ColumnKind)], shared: Bool)] = [
        ("player", "created_at, id", [("id", .text), ("name", .text), ("language", .text), ("token_hash", .bytes), ("created_at", .real)], true),
        ("play_group", "created_at, id", [
            ("id", .text), ("venue_id", .text), ("name", .text), ("join_code", .text), ("creator_id", .text), ("created_at", .real),
            ("joinable_until", .real), ("closed_at", .real), ("closed_reason", .text),
        ], false),
        ("membership", "id", [("group_id", .text), ("player_id", .text), ("joined_at", .real), ("left_at", .real)], false),
        ("photo", "created_at, id", [
            ("id", .text), ("group_id", .text), ("photographer_id", .text), ("mission_id", .text), ("task_id", .text), ("blob", .text),
            ("format", .text), ("width", .integer), ("height", .integer), ("created_at", .real), ("focus_x", .real), ("focus_y", .real),
        ], false),
        ("hidden_photo", "created_at, id", [
            ("id", .text), ("group_id", .text), ("photographer_id", .text), ("mission_id", .text), ("task_id", .text), ("blob", .text),
            ("format", .text), ("width", .integer), ("height", .integer), ("created_at", .real), ("focus_x", .real), ("focus_y", .real),
            ("hidden_at", .real), ("hidden_reason", .text), ("held", .boolean),
        ], false),
        ("task_choice", "group_id, mission_id, task_id", [("group_id", .text), ("mission_id", .text), ("task_id", .text), ("photo_id", .text)], false),
        ("upload_key", "created_at, key", [
            ("player_id", .text), ("group_id", .text), ("key", .text), ("photo_id", .text), ("mission_id", .text), ("task_id", .text),
            ("created_at", .real),
        ], false),
        ("group_event", "group_id, seq", [("group_id", .text), ("seq", .integer), ("type", .text), ("data", .text), ("created_at", .real)], false),
        ("collage", "group_id, mission_id", [
            ("group_id", .text), ("mission_id", .text), ("photo_ids", .text), ("key", .text), ("width", .integer), ("height", .integer),
            ("created_at", .real),
        ], false),
        ("staff", "email", [("id", .text), ("email", .text), ("password_hash", .text), ("role", .text), ("created_at", .real)], true),
        ("staff_venue", "staff_id, venue_id", [("staff_id", .text), ("venue_id", .text)], true),
        ("staff_session", "created_at", [("token_hash", .bytes), ("staff_id", .text), ("csrf_token", .text), ("created_at", .real), ("expires_at", .real)], false),
        ("staff_audit", "id", [
            ("at", .real), ("staff_email", .text), ("venue_id", .text), ("action", .text), ("subject", .text), ("reason", .text),
        ], false),
    ]

    /// Copies every row of `source` into this database, which may hold other venues already
    /// (imported from their own exports) but none of the source's groups; returns the rows copied
    /// per table. Players and staff it has already (one who played, or works, at two venues) are
    /// kept as they are. Nothing is copied when anything fails.
    public func importRows(from source: some RowSource) async throws -> [(table: String, rows: Int)] {
        try await write { connection in
            let groupIds = try await source.storedGroupIds()
            let present = try await connection.value("SELECT COUNT(*) FROM play_group WHERE id = ANY(\(groupIds))", as: Int.self, logger: logger) ?? 0
            guard present == 0 else { throw PostgresStoreError.alreadyImported(groups: present) }
            var copied: [(table: String, rows: Int)] = []
            for table in Self.copiedTables {
                let names = table.columns.map(\.0).joined(separator: ", ")
                let columns = table.columns.map(\.0)
                var count = 0
                var offset = 0
                while true {
                    // A page at a time: a large database does not have to fit in memory.
                    let rows = try await source.rows(of: table.name, columns: columns, order: table.order, limit: 1000, offset: offset)
                    if rows.isEmpty { break }
                    for row in rows {
                        var bindings = PostgresBindings(capacity: table.columns.count)
                        for (index, (_, kind)) in table.columns.enumerated() {
                            try Self.bind(row[index], as: kind, into: &bindings)
                        }
                        let placeholders = (1...table.columns.count).map { "$\($0)" }.joined(separator: ", ")
                        try await connection.run(
                            PostgresQuery(unsafeSQL: "INSERT INTO \(table.name) (\(names)) VALUES (\(placeholders))\(table.shared ? " ON CONFLICT DO NOTHING" : "")", binds: bindings),
                            logger: logger
                        )
                    }
                    count += rows.count
                    offset += rows.count
                }
                copied.append((table.name, count))
            }
            // Each group's next event is numbered after its newest imported one.
            try await connection.run("""
                UPDATE play_group SET event_seq = newest.seq
                FROM (SELECT group_id, MAX(seq) AS seq FROM group_event WHERE group_id = ANY(\(groupIds)) GROUP BY group_id) AS newest
                WHERE play_group.id = newest.group_id
                """, logger: logger)
            return copied
        }
    }

    private static func bind(_ value: StoredValue, as kind: ColumnKind, into bindings: inout PostgresBindings) throws {
        switch (kind, value) {
        case (.text, .text(let text)): bindings.append(text)
        case (.text, _): bindings.append(String?.none)
        case (.integer, .integer(let number)): bindings.append(Int(number))
        case (.integer, .real(let number)): bindings.append(Int(number))
        case (.integer, _): bindings.append(Int?.none)
        case (.real, .real(let number)): bindings.append(number)
        case (.real, .integer(let number)): bindings.append(Double(number))
        case (.real, _): bindings.append(Double?.none)
        case (.bytes, .bytes(let data)): try bindings.append(data)
        case (.bytes, _): try bindings.append(Data?.none)
        case (.boolean, .integer(let number)): bindings.append(number != 0)
        case (.boolean, _): bindings.append(Bool?.none)
        }
    }
}
