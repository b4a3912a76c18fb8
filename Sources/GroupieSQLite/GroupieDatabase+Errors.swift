import GRDB

extension GroupieDatabase {
    /// Whether `error` says that the file opened is no SQLite database, or one damaged past
    /// reading: what an operator fixes from a backup, not by trying again.
    public static func isNotADatabase(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT
    }
}
