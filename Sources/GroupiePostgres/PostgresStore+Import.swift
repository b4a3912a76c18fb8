import Foundation
import GroupieStorage
import PostgresNIO

/// Moving between backends: every row of another database (a whole SQLite database, or one
/// venue's export) copied into this PostgreSQL database in one transaction, and one venue's
/// rows read out in one snapshot for `groupie export`. The venue numbers are not copied but
/// made again from the events, in order, once they are all there.
extension PostgresStore: RowSource {
    /// Copies the rows of `source` that `filter` admits into this database, which may hold
    /// other venues already (imported from their own exports) but none of the source's groups;
    /// returns the rows copied per table. Players it has already (one who played at two venues)
    /// are kept as they are. Nothing is copied when a row is refused or anything fails.
    public func importRows(from source: some RowSource, filter: ImportFilter = ImportFilter()) async throws -> [(table: String, rows: Int)] {
        let admitted = try await filter.admittedRows(from: source)
        let groupIds = ImportFilter.groupIds(of: admitted)
        return try await write { connection in
            let present = try await connection.value("SELECT COUNT(*) FROM play_group WHERE id = ANY(\(groupIds))", as: Int.self, logger: logger) ?? 0
            guard present == 0 else { throw PostgresStoreError.alreadyImported(groups: present) }
            var copied: [String: Int] = [:]
            for (table, rows) in admitted {
                let placeholders = (1...table.columns.count).map { "$\($0)" }.joined(separator: ", ")
                // Counted as written: a shared row the database holds already (a player of two
                // venues imported one after the other) is passed over, and not counted.
                let sql = "INSERT INTO \(table.name) (\(table.columnList)) VALUES (\(placeholders))\(table.shared ? " ON CONFLICT DO NOTHING" : "") RETURNING 1"
                for (index, row) in rows.enumerated() {
                    var bindings = PostgresBindings(capacity: table.columns.count)
                    for (value, column) in zip(row, table.columns) {
                        try Self.bind(value, as: column.kind, into: &bindings)
                    }
                    let written: Int
                    do {
                        written = try await connection.rows(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).count
                    } catch let error as PSQLError {
                        // Which row PostgreSQL would not take, and why, in its own words.
                        throw ImportRefusal.row(
                            table: table.name, number: index + 1, key: nil,
                            reason: "PostgreSQL refused it: \(error.serverInfo?[.message] ?? "\(error.code)")"
                        )
                    }
                    if written == 0, table.name == "staff", case .text(let id) = row[0], case .text(let email) = row[1] {
                        // The same account (a member of staff at two venues, imported one after
                        // the other) is kept as it is; another account under the e-mail is not replaced.
                        let existing = try await connection.column("SELECT id FROM staff WHERE email = \(email) OR id = \(id)", as: String.self, logger: logger)
                        guard existing == [id] else { throw ImportRefusal.staffExists(email) }
                    }
                    copied[table.name, default: 0] += written
                }
            }
            // Each group's next event is numbered after its newest imported one.
            try await connection.run("""
                UPDATE play_group SET event_seq = newest.seq
                FROM (SELECT group_id, MAX(seq) AS seq FROM group_event WHERE group_id = ANY(\(groupIds)) GROUP BY group_id) AS newest
                WHERE play_group.id = newest.group_id
                """, logger: logger)
            try await Self.countCopiedGroups(connection, ids: groupIds, logger: logger)
            return CopiedTable.all.map { ($0.name, copied[$0.name] ?? 0) }
        }
    }

    public func storedGroupIds(venue: String?) async throws -> [String] {
        try await read { connection in
            if let venue { return try await connection.column("SELECT id FROM play_group WHERE venue_id = \(venue)", as: String.self, logger: logger) }
            return try await connection.column("SELECT id FROM play_group", as: String.self, logger: logger)
        }
    }

    /// Reads in one snapshot, so that a server may keep serving meanwhile.
    public func copyRows(venue: String?, page: Int, into body: (CopiedTable, [[StoredValue]]) async throws -> Void) async throws {
        try await read { connection in
            for table in CopiedTable.all {
                var offset = 0
                while true {
                    var bindings = PostgresBindings()
                    for argument in table.arguments(venue: venue) { bindings.append(argument) }
                    let sql = """
                        SELECT \(table.columnList) FROM \(table.name) WHERE \(table.condition(venue: venue, placeholder: "$1"))
                        ORDER BY \(table.order) LIMIT \(page) OFFSET \(offset)
                        """
                    let rows = try await connection.rows(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
                    if rows.isEmpty { break }
                    try await body(table, try rows.map { row in try zip(row, table.columns).map { try Self.value($0.0, as: $0.1.kind) } })
                    offset += rows.count
                    if rows.count < page { break }
                }
            }
        }
    }

    private static func value(_ cell: PostgresCell, as kind: CopiedTable.Kind) throws -> StoredValue {
        switch kind {
        case .text: try cell.decode(String?.self).map(StoredValue.text) ?? .null
        case .integer: try cell.decode(Int?.self).map { .integer(Int64($0)) } ?? .null
        case .real: try cell.decode(Double?.self).map(StoredValue.real) ?? .null
        case .bytes: try cell.decode(ByteBuffer?.self).map { .bytes(Data(buffer: $0)) } ?? .null
        case .boolean: try cell.decode(Bool?.self).map { .integer($0 ? 1 : 0) } ?? .null
        }
    }

    private static func bind(_ value: StoredValue, as kind: CopiedTable.Kind, into bindings: inout PostgresBindings) throws {
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
