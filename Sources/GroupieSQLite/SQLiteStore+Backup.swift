import Foundation
import GRDB
import GroupieStorage

/// Copies of the database for `groupie backup` and `groupie restore`.
extension SQLiteStore {
    /// Copies the Groupie database at `source` into a new file at `destination` while a server
    /// may go on writing it: SQLite's online backup (GRDB's `backup(to:)`) in one step, which
    /// reads one snapshot, so the copy holds exactly the transactions committed before it began
    /// (in WAL mode the writer is not held up meanwhile). The source is only read, never
    /// migrated: the server that writes it may be of another version. Returns the names of the
    /// migrations the copy has.
    public static func backup(from source: String, to destination: String) throws -> [String] {
        guard FileManager.default.fileExists(atPath: source) else { throw DatabaseFileError.unreadable(source, "there is no such file") }
        do {
            let file = try readOnly(source)
            defer { try? file.close() }
            let copy = try DatabaseQueue(path: destination)
            try file.backup(to: copy)
            let (check, applied) = try copy.read { db in
                let check = try String.fetchOne(db, sql: "PRAGMA quick_check") ?? ""
                let applied = try db.tableExists("grdb_migrations") ? try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") : []
                return (check, applied)
            }
            try copy.close()
            guard check == "ok" else { throw DatabaseFileError.unreadable(source, "its copy fails SQLite's check: \(check)") }
            guard let first = migrator.migrations.first, applied.contains(first) else { throw DatabaseFileError.notGroupie(source) }
            return applied
        } catch let error as DatabaseError {
            throw DatabaseFileError.unreadable(source, error.message ?? "\(error.resultCode)")
        }
    }

    /// SQLite's `PRAGMA integrity_check` of the file at `path`, opened read-only: "ok" when it
    /// is sound. What `groupie restore` asks of a restored copy before it takes its place.
    public static func integrityCheck(ofFileAt path: String) throws -> String {
        do {
            let file = try readOnly(path)
            defer { try? file.close() }
            return try file.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check").joined(separator: "; ") }
        } catch let error as DatabaseError {
            throw DatabaseFileError.reading(path, error)
        }
    }

    /// The file at `path`, opened only to read, waiting a while for a writer's lock.
    static func readOnly(_ path: String) throws -> DatabaseQueue {
        var reading = Configuration()
        reading.readonly = true
        reading.busyMode = .timeout(10)
        return try DatabaseQueue(path: path, configuration: reading)
    }
}

/// What `groupie doctor` reads of a SQLite database file, without writing to it.
public struct SQLiteHealth: Sendable {
    /// `wal` for a file a Groupie server has opened.
    public var journalMode: String
    /// `PRAGMA quick_check`: "ok" when the file is sound.
    public var quickCheck: String
    /// Whether the file has migrations this Groupie does not know (a newer Groupie's), and
    /// whether it lacks some that this one would apply at start.
    public var isNewer: Bool
    public var needsMigration: Bool
}

extension SQLiteStore {
    /// `PRAGMA quick_check` of the file at `path`, read-only: "ok" when the file is sound, else
    /// what SQLite found; nil when the check took longer than `limit` (a very large file) and
    /// was stopped.
    public static func quickCheck(ofFileAt path: String, within limit: Duration) throws -> String? {
        let file: DatabaseQueue
        do {
            file = try readOnly(path)
        } catch let error as DatabaseError {
            throw DatabaseFileError.reading(path, error)
        }
        defer { try? file.close() }
        let stop = DispatchWorkItem { file.interrupt() }
        DispatchQueue.global().asyncAfter(deadline: .now() + Double(limit.components.seconds) + Double(limit.components.attoseconds) / 1e18, execute: stop)
        defer { stop.cancel() }
        do {
            return try file.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check") ?? "?" }
        } catch let error as DatabaseError where error.resultCode == .SQLITE_INTERRUPT {
            return nil
        } catch let error as DatabaseError {
            throw DatabaseFileError.reading(path, error)
        }
    }

    /// Why this user cannot write the database file at `path` or its companions (`-wal`,
    /// `-shm`), or nil when it can: SQLite would open a read-only file read-only, and every write
    /// would then fail.
    public static func unwritable(_ path: String) -> String? {
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            let descriptor = Glibc.open(file, O_RDWR | O_CLOEXEC)
            guard descriptor >= 0 else { return "\(file) cannot be opened for writing by this user (uid \(geteuid())): \(String(cString: strerror(errno)))" }
            close(descriptor)
        }
        return nil
    }

    public static func health(ofFileAt path: String) throws -> SQLiteHealth {
        do {
            let file = try readOnly(path)
            defer { try? file.close() }
            return try file.read { db in
                let applied = try db.tableExists("grdb_migrations") ? Set(try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")) : []
                let known = Set(migrator.migrations)
                return SQLiteHealth(
                    journalMode: try String.fetchOne(db, sql: "PRAGMA journal_mode") ?? "?",
                    quickCheck: try String.fetchOne(db, sql: "PRAGMA quick_check") ?? "?",
                    isNewer: !applied.isSubset(of: known), needsMigration: !known.isSubset(of: applied)
                )
            }
        } catch let error as DatabaseError {
            throw DatabaseFileError.reading(path, error)
        }
    }
}
