import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GRDB
import GroupieCore
import GroupieStorage

/// Moving a venue at a time: one venue's visits as a SQLite database of their own, for
/// `groupie import` into a PostgreSQL database that other venues may already use.
extension SQLiteStore {
    /// Opens a Groupie database that exists already, to copy from (`groupie export` and
    /// `groupie import`), read-only. A file that is not SQLite, SQLite without Groupie's tables
    /// (an empty file among them), or the database of a newer Groupie is refused with its name
    /// and left as it was; a file this version would have to migrate is brought to its schema
    /// first, as `serve` would at start, and is the only kind that is written.
    public static func openExisting(atPath path: String) throws -> SQLiteStore {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw DatabaseFileError.unreadable(path, "it cannot be opened for reading") }
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        try? handle.close()
        guard !head.isEmpty else { throw DatabaseFileError.notGroupie(path) }
        guard head == Data("SQLite format 3\u{0}".utf8) else { throw DatabaseFileError.notSQLite(path, "it does not begin as a SQLite file does") }
        // SQLite makes these beside a WAL-mode file even to read it: gone again from a refused one.
        let absent = ["-wal", "-shm"].map { path + $0 }.filter { !FileManager.default.fileExists(atPath: $0) }
        func refuse(_ error: DatabaseFileError) -> DatabaseFileError {
            for companion in absent { try? FileManager.default.removeItem(atPath: companion) }
            return error
        }
        var configuration = Configuration()
        configuration.readonly = true
        let file: DatabaseQueue
        let applied: [String]
        do {
            file = try DatabaseQueue(path: path, configuration: configuration)
            applied = try file.read { db in
                guard try db.tableExists("grdb_migrations") else { return [] }
                return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            }
        } catch let error as DatabaseError {
            throw refuse(.reading(path, error))
        }
        let known = migrator.migrations
        guard let first = known.first, applied.contains(first) else {
            try? file.close()
            throw refuse(.notGroupie(path))
        }
        guard Set(applied).isSubset(of: known) else {
            try? file.close()
            throw refuse(.newer(path))
        }
        if Set(known).isSubset(of: applied) { return try SQLiteStore(writer: file, migrates: false) }
        try file.close()
        return try open(atPath: path)
    }
    /// Writes a copy of the database to `path` (a new file) that holds the venue `venueId` only:
    /// its groups with everything that hangs on them (memberships, photos, hidden and held
    /// photos, chosen photos, upload keys, events, collages, numbers), the players who were ever
    /// in one of them, the venue's staff and the admins (with no other venue), and the venue's
    /// audit entries; no staff sessions. The copy is taken in one read (`VACUUM INTO`), so a
    /// server may keep serving meanwhile. Returns what the copy holds; a venue with no stored
    /// group is refused and leaves no file.
    public func exportVenue(_ venueId: String, to path: String) async throws -> RowCounts {
        try await Self.newExport(at: path, venueId: venueId) {
            try await writer.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [path]) }
            let copy = try SQLiteStore(writer: DatabaseQueue(path: path))
            try await copy.writer.write { db in
                // Each other venue's group takes its counts out of the tally, and foreign keys the
                // rest of it.
                try Self.uncountGroups(db, where: "venue_id <> ?", [venueId])
                try db.execute(sql: "DELETE FROM play_group WHERE venue_id <> ?", arguments: [venueId])
                for table in CopiedTable.all.reversed() where table.name != "play_group" {
                    try db.execute(
                        sql: "DELETE FROM \(table.name) WHERE NOT \(table.condition(venue: venueId, placeholder: "?"))",
                        arguments: StatementArguments(table.arguments(venue: venueId))
                    )
                }
            }
            return copy
        }
    }

    /// The same export from another backend (PostgreSQL), whose `copyRows` reads its rows in one
    /// snapshot: a new database at `path`, filled a page at a time; its numbers are made again
    /// from the events once they are all there.
    public static func exportVenue(_ venueId: String, from source: some RowSource, to path: String) async throws -> RowCounts {
        try await newExport(at: path, venueId: venueId) {
            let copy = try SQLiteStore(writer: DatabaseQueue(path: path))
            try await source.copyRows(venue: venueId, page: 1000) { table, rows in
                try await copy.writer.write { db in _ = try insert(rows, into: table, db: db) }
            }
            try await copy.writer.write { db in try countCopiedGroups(db, where: "TRUE") }
            return copy
        }
    }

    /// Makes `path` empty and private, runs `fill`, and leaves the file only when it holds a
    /// group of the venue; a half-made export is never left to be imported, or to stand in the
    /// way of the next try.
    private static func newExport(at path: String, venueId: String, fill: () async throws -> SQLiteStore) async throws -> RowCounts {
        // Names and token hashes are never readable by others, and two exports cannot write the same file.
        let file = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard file >= 0 else {
            throw errno == EEXIST ? ExportError.fileExists(path) : ExportError.cannotCreate(path, String(cString: strerror(errno)))
        }
        close(file)
        do {
            let copy = try await fill()
            let counts = try await copy.counts()
            // A mistyped venue id would otherwise make a file of nothing but the admins.
            guard counts.groups > 0 else { throw ExportError.noGroups(venueId) }
            try await copy.writer.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
            try copy.writer.close()
            return counts
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
            throw error
        }
    }

    /// Copies the rows of the Groupie database at `path` (one venue's export, or a whole
    /// database) that `filter` admits into this one, in one transaction; returns the rows copied
    /// per table. This database may hold other venues already, but none of the file's groups.
    /// Players it has already are kept as they are; the numbers are made again from the events.
    /// A refused row, or any failure, leaves this database as it was.
    public func importRows(fromFile path: String, filter: ImportFilter = ImportFilter()) async throws -> [(table: String, rows: Int)] {
        let source = try Self.openExisting(atPath: path)
        let admitted: [(table: CopiedTable, rows: [[StoredValue]])]
        do {
            admitted = try await filter.admittedRows(from: source)
            try source.writer.close()
        } catch {
            try? source.writer.close()
            throw error
        }
        let groupIds = ImportFilter.groupIds(of: admitted)
        let ids = String(decoding: try JSONEncoder().encode(groupIds), as: UTF8.self)
        return try await writer.write { db in
            let present = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM play_group WHERE id IN (SELECT value FROM json_each(?))", arguments: [ids]) ?? 0
            guard present == 0 else { throw ImportError.alreadyImported(groups: present) }
            var copied: [(table: String, rows: Int)] = []
            for (table, rows) in admitted {
                copied.append((table.name, try Self.insert(rows, into: table, db: db)))
            }
            try Self.countCopiedGroups(db, where: "id IN (SELECT value FROM json_each(?))", [ids])
            return copied
        }
    }

    /// Inserts `rows`; returns how many were written. A shared row the database holds already
    /// (a player of two venues) is passed over; a staff account it holds already refuses all.
    @discardableResult
    private static func insert(_ rows: [[StoredValue]], into table: CopiedTable, db: Database) throws -> Int {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO \(table.name) (\(table.columnList)) VALUES (\(databaseQuestionMarks(count: table.columns.count)))\(table.shared ? " ON CONFLICT DO NOTHING" : "")"
        )
        var written = 0
        for row in rows {
            try statement.execute(arguments: StatementArguments(row.map { value -> DatabaseValue in
                switch value {
                case .null: .null
                case .text(let text): text.databaseValue
                case .integer(let number): number.databaseValue
                case .real(let number): number.databaseValue
                case .bytes(let data): data.databaseValue
                }
            }))
            if db.changesCount == 0, table.name == "staff", case .text(let id) = row[0], case .text(let email) = row[1] {
                // The same account (a member of staff at two venues, imported one after the
                // other) is kept as it is; another account under the e-mail is not replaced.
                let existing = try String.fetchOne(db, sql: "SELECT id FROM staff WHERE email = ? OR id = ?", arguments: [email, id])
                guard existing == id else { throw ImportRefusal.staffExists(email) }
            }
            written += db.changesCount
        }
        return written
    }
}

/// An import that would bring groups the database holds already.
public enum ImportError: Error, CustomStringConvertible, Equatable {
    case alreadyImported(groups: Int)

    public var description: String {
        switch self {
        case .alreadyImported(let groups):
            "The database holds \(groups) of these groups already: this file was imported before. Nothing was copied."
        }
    }
}

public enum ExportError: Error, CustomStringConvertible, Equatable {
    case fileExists(String)
    case cannotCreate(String, String)
    /// The database holds no group of the venue.
    case noGroups(String)

    public var description: String {
        switch self {
        case .fileExists(let path): "\(path) exists already: name a new file to export to."
        case .cannotCreate(let path, let reason): "\(path) cannot be created: \(reason)."
        case .noGroups(let venueId): "No group of the venue '\(venueId)' is stored; check the venue's id (its mission file's name). Nothing was written."
        }
    }
}

/// A file named as a Groupie database that is not one.
public enum DatabaseFileError: Error, CustomStringConvertible, Equatable {
    case notSQLite(String, String)
    case notGroupie(String)
    case newer(String)
    case unreadable(String, String)

    public var description: String {
        switch self {
        case .notSQLite(let path, let reason): "\(path) is not a SQLite database (\(reason)). Nothing was read or changed."
        case .notGroupie(let path): "\(path) holds no Groupie database (none of its tables). Nothing was read or changed."
        case .newer(let path): "\(path) was written by a newer Groupie than this one: upgrade this Groupie first. Nothing was read or changed."
        case .unreadable(let path, let reason): "\(path) cannot be read (\(reason)). Nothing was changed."
        }
    }
}

extension SQLiteStore: RowSource {
    public func storedGroupIds(venue: String?) async throws -> [String] {
        try await writer.read { db in
            guard let venue else { return try String.fetchAll(db, sql: "SELECT id FROM play_group") }
            return try String.fetchAll(db, sql: "SELECT id FROM play_group WHERE venue_id = ?", arguments: [venue])
        }
    }

    public func copyRows(venue: String?, page: Int, into body: (CopiedTable, [[StoredValue]]) async throws -> Void) async throws {
        for table in CopiedTable.all {
            var offset = 0
            while true {
                let skipped = offset
                let rows = try await writer.read { db in
                    try Row.fetchAll(
                        db,
                        sql: """
                            SELECT \(table.columnList) FROM \(table.name) WHERE \(table.condition(venue: venue, placeholder: "?"))
                            ORDER BY \(table.order) LIMIT \(page) OFFSET \(skipped)
                            """,
                        arguments: StatementArguments(table.arguments(venue: venue))
                    ).map { row in
                        row.databaseValues.map { value -> StoredValue in
                            switch value.storage {
                            case .null: .null
                            case .int64(let number): .integer(number)
                            case .double(let number): .real(number)
                            case .string(let text): .text(text)
                            case .blob(let data): .bytes(data)
                            }
                        }
                    }
                }
                if rows.isEmpty { break }
                try await body(table, rows)
                offset += rows.count
                if rows.count < page { break }
            }
        }
    }
}
