import GRDB

extension SQLiteStore {
    /// Whether `error` says that the file opened is no SQLite database, or one damaged past
    /// reading: what an operator fixes from a backup, not by trying again.
    public static func isNotADatabase(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
    }

    /// What an operator does about a data folder's `path` that is no database, in the words
    /// `serve`, `migrate` and `doctor` all use.
    public static func notADatabase(_ path: String) -> String {
        "\(path) is not a SQLite database (damaged, or another file put in its place); move it aside and restore the data folder from a backup (groupie restore)"
    }
}

extension DatabaseFileError {
    /// The file at `path` could not be read as a database: `notSQLite` when it is none (or is
    /// damaged), `unreadable` for any other reason.
    static func reading(_ path: String, _ error: DatabaseError) -> DatabaseFileError {
        let reason = error.message ?? "\(error.resultCode)"
        return SQLiteStore.isNotADatabase(error) ? .notSQLite(path, reason) : .unreadable(path, reason)
    }
}
