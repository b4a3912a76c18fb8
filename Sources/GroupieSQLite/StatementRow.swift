import CSQLite
import GRDB
import GroupieStorage

extension Statement {
    /// Runs the statement and reads its first row in place, column by column, or returns nil
    /// when there is none. GRDB's `Row` builds a dictionary of the statement's lowercased
    /// column names at every fetch and copies every value before it is read: for the lookup
    /// that every request of a member to its group makes, more than the query itself.
    func firstRow<T>(arguments: StatementArguments, _ read: (StatementColumns) -> T) throws -> T? {
        try setArguments(arguments)
        defer { sqlite3_reset(sqliteStatement) }
        return try step() ? read(StatementColumns(statement: sqliteStatement)) : nil
    }

    /// Runs the statement and reads each of its rows in place, as `firstRow` does the first.
    func allRows<T>(arguments: StatementArguments, _ read: (StatementColumns) -> T) throws -> [T] {
        try setArguments(arguments)
        defer { sqlite3_reset(sqliteStatement) }
        var rows: [T] = []
        while try step() {
            rows.append(read(StatementColumns(statement: sqliteStatement)))
        }
        return rows
    }

    /// One step: true on a row, false when the statement is done.
    private func step() throws -> Bool {
        let code = sqlite3_step(sqliteStatement)
        switch code {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        case SQLITE_INTERRUPT where Task.isCancelled:
            // GRDB interrupts the statements of a cancelled task; it says so as GRDB does.
            throw CancellationError()
        default:
            let message = String(cString: sqlite3_errmsg(sqlite3_db_handle(sqliteStatement)))
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: sql)
        }
    }
}

/// The columns of the row a statement stands on, read by position with GRDB's own decoding.
struct StatementColumns {
    let statement: SQLiteStatement

    func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(statement, index) == SQLITE_NULL
    }

    /// A column that is never NULL.
    func value<V: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int32) -> V {
        V(sqliteStatement: statement, index: index)!
    }

    func optional<V: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int32) -> V? {
        isNull(index) ? nil : V(sqliteStatement: statement, index: index)
    }
}

/// Columns read by position, from a GRDB `Row` or in place from a statement: the decoders of
/// a group or a player are written once for both.
protocol PositionalColumns {
    func value<V: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int32) -> V
    func optional<V: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int32) -> V?
}

extension StatementColumns: PositionalColumns {}

extension Row: PositionalColumns {
    func value<V: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int32) -> V {
        self[Int(index)]
    }

    func optional<V: DatabaseValueConvertible & StatementColumnConvertible>(_ index: Int32) -> V? {
        self[Int(index)]
    }
}
