import GroupieStorage
import PostgresNIO

/// The SQL of a statement that runs on every write: PostgreSQL parses it once per connection,
/// and after five runs keeps a plan that fits any values when that plan is as good (PostgreSQL's
/// `plan_cache_mode=auto`), instead of parsing and planning it at every use. Planning the unnamed
/// statements postgres-nio sends by default took twice as long as running them under the
/// small-write load.
protocol PreparedSQL {
    static var sql: String { get }
    /// The parameters' types, declared so that a NULL bound first cannot leave one to guesswork.
    static var types: [PostgresDataType] { get }
}

/// A `PreparedSQL` with its values: prepared on a connection the first time it runs there.
struct Prepared<Text: PreparedSQL>: PostgresPreparedStatement {
    typealias Row = PostgresRow

    static var name: String { "groupie_" + String(describing: Text.self) }
    static var sql: String { Text.sql }
    static var bindingDataTypes: [PostgresDataType] { Text.types }

    let bindings: PostgresBindings

    /// The values of `Text`'s parameters, in order.
    init(_ values: any PostgresThrowingDynamicTypeEncodable...) throws {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { try bindings.append(value) }
        self.init(bindings)
    }

    init(_ bindings: PostgresBindings) {
        precondition(bindings.count == Text.types.count, "\(Text.self) takes \(Text.types.count) values")
        self.bindings = bindings
    }

    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

extension PostgresConnection {
    /// The first row of a prepared statement, if any.
    func one<Text: PreparedSQL>(_ statement: Prepared<Text>, logger: Logger) async throws -> PostgresRandomAccessRow? {
        try await rows(statement, logger: logger).first
    }

    /// Every row of a prepared statement, for reading by position.
    func rows<Text: PreparedSQL>(_ statement: Prepared<Text>, logger: Logger) async throws -> [PostgresRandomAccessRow] {
        try ensureOpen()
        do {
            var rows: [PostgresRandomAccessRow] = []
            for try await row in try await execute(statement, logger: logger) {
                rows.append(row.makeRandomAccess())
            }
            return rows
        } catch let error as PSQLError where !Self.leavesPreparationIntact(error) {
            // postgres-nio keeps a failed preparation for the connection's whole life: every
            // later use of the statement there would fail at once. Closed, the connection leaves
            // the pool, which opens another.
            logger.warning("closing a PostgreSQL connection after \(error.serverInfo?[.sqlState] ?? "?") on \(Text.self)")
            try? await close()
            throw error
        }
    }

    /// Errors that only a statement's run can raise, with its values: a constraint broken
    /// (class 23) or a value out of range (class 22). Any other error may have ended the
    /// preparation (a timeout or a deadlock while a migration holds a table, a column's type
    /// changed by a migration, a transaction already failed), and closes the connection.
    static func leavesPreparationIntact(_ error: PSQLError) -> Bool {
        guard let state = error.serverInfo?[.sqlState] else { return false }
        return state.hasPrefix("23") || state.hasPrefix("22")
    }
}
