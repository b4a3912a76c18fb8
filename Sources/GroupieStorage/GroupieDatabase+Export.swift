import Foundation
#if canImport(Glibc)
import Glibc
#endif
import GRDB
import GroupieCore

/// Moving a venue at a time: one venue's visits as a SQLite database of their own, for
/// `groupie import` into a PostgreSQL database that other venues may already use.
extension GroupieDatabase {
    /// Opens a Groupie database that exists already, to copy from (`groupie export` and
    /// `groupie import`). The file is read first, read-only: one that is not SQLite, or SQLite
    /// without Groupie's tables (an empty file among them), is refused with its name and is left
    /// as it was, where opening it as a database to serve would make one of it.
    public static func openExisting(atPath path: String) throws -> GroupieDatabase {
        var configuration = Configuration()
        configuration.readonly = true
        let applied: [String]
        do {
            let file = try DatabaseQueue(path: path, configuration: configuration)
            applied = try file.read { db in
                guard try db.tableExists("grdb_migrations") else { return [] }
                return try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
            }
            try file.close()
        } catch let error as DatabaseError {
            throw DatabaseFileError.notSQLite(path, error.message ?? "\(error.resultCode)")
        }
        guard let first = migrator.migrations.first, applied.contains(first) else { throw DatabaseFileError.notGroupie(path) }
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
        // Made empty and private first (`VACUUM INTO` fills an empty file): names and token hashes
        // are never readable by others, and two exports cannot write the same file.
        let file = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard file >= 0 else {
            throw errno == EEXIST ? ExportError.fileExists(path) : ExportError.cannotCreate(path, String(cString: strerror(errno)))
        }
        close(file)
        do {
            try await writer.writeWithoutTransaction { db in try db.execute(sql: "VACUUM INTO ?", arguments: [path]) }
            let copy = try GroupieDatabase(writer: DatabaseQueue(path: path))
            try await copy.writer.write { db in
                // Foreign keys take the rest of each other venue's group with it, and the tally's
                // triggers its numbers.
                try db.execute(sql: "DELETE FROM play_group WHERE venue_id <> ?", arguments: [venueId])
                try db.execute(sql: "DELETE FROM player WHERE id NOT IN (SELECT player_id FROM membership)")
                try db.execute(sql: "DELETE FROM staff_venue WHERE venue_id <> ?", arguments: [venueId])
                try db.execute(sql: "DELETE FROM staff WHERE role <> ? AND id NOT IN (SELECT staff_id FROM staff_venue)", arguments: [StaffRole.admin.rawValue])
                try db.execute(sql: "DELETE FROM staff_session")
                try db.execute(sql: "DELETE FROM staff_audit WHERE venue_id IS NOT ?", arguments: [venueId])
            }
            let counts = try await copy.counts()
            // A mistyped venue id would otherwise make a file of nothing but the admins.
            guard counts.groups > 0 else { throw ExportError.noGroups(venueId) }
            try await copy.writer.writeWithoutTransaction { db in try db.execute(sql: "VACUUM") }
            return counts
        } catch {
            // No half-made export is left to be imported, or to stand in the way of the next try.
            unlink(path)
            throw error
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

    public var description: String {
        switch self {
        case .notSQLite(let path, let reason): "\(path) is not a SQLite database (\(reason)). Nothing was read or changed."
        case .notGroupie(let path): "\(path) holds no Groupie database (none of its tables). Nothing was read or changed."
        }
    }
}
