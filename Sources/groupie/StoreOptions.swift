import ArgumentParser
import Foundation
import GroupiePostgres
import GroupieServer
import GroupieSQLite
import GroupieStorage
import Logging

/// Where `serve` keeps its state, for the commands that work on it without serving:
/// `--data` and `--database`, or `GROUPIE_DATA` and `GROUPIE_DATABASE`, as `serve` reads them.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("data"), help: "The data folder of 'groupie serve' (default: GROUPIE_DATA, else ./data).")
    var data: String?
    @Option(name: .customLong("database"), help: "postgres://… when 'serve' uses PostgreSQL (default: GROUPIE_DATABASE, else SQLite in the data folder).")
    var database: String?

    var configuration: ServerConfiguration {
        get throws {
            let environment = ProcessInfo.processInfo.environment
            func given(_ value: String?) -> String? { value.flatMap { $0.isEmpty ? nil : $0 } }
            var configuration = ServerConfiguration()
            configuration.dataDirectory = DataFolder.chosen(data, environment: environment).path
            if let url = given(database) ?? given(environment["GROUPIE_DATABASE"]), url != "sqlite" {
                guard PostgresURL.isPostgres(url) else { throw ValidationError("The database must be 'sqlite' or a postgres:// URL.") }
                configuration.databaseURL = url
            }
            return configuration
        }
    }

    /// The staff accounts of the database. On SQLite, a data folder without a database is most
    /// likely a mistyped `--data`: refused, unless the command adds an account (`creating`),
    /// which may come before the first `serve` and makes the database, saying so.
    func accounts(creating: Bool = false) async throws -> StaffAccounts {
        let configuration = try configuration
        let isNew = try Self.newSQLite(configuration, creating: creating)
        let accounts = try await StaffAccounts.open(dataDirectory: configuration.dataDirectory, databaseURL: configuration.databaseURL)
        if isNew { Self.tellMade(configuration) }
        return accounts
    }

    /// Whether the command's database is SQLite and has no file yet; throws when it has none and
    /// the command does not make one.
    static func newSQLite(_ configuration: ServerConfiguration, creating: Bool) throws -> Bool {
        let path = configuration.dataFolder.database
        guard configuration.databaseURL == nil, !FileManager.default.fileExists(atPath: path) else { return false }
        guard creating else {
            throw CommandFailure(
                "There is no Groupie database at \(path): check --data (or GROUPIE_DATA), or give --database when serve uses PostgreSQL. Nothing was created."
            )
        }
        return true
    }

    /// Says on standard error that a new SQLite database was made, so that a mistyped `--data`
    /// is seen at once.
    static func tellMade(_ configuration: ServerConfiguration) {
        let path = configuration.dataFolder.database
        FileHandle.standardError.write(Data("groupie: there was no database at \(path); a new one was made there. If serve uses another data folder, check --data.\n".utf8))
    }

    /// The PostgreSQL store at `url`, migrated; what cannot be opened is said without the password.
    static func openPostgres(_ url: String, doing what: String) async throws -> (store: PostgresStore, shown: String) {
        let shown = try PostgresURL(url).redacted
        do {
            return (try await PostgresStore.open(url: url, logger: logger, ready: false), shown)
        } catch {
            throw CommandFailure("The PostgreSQL database \(shown) cannot be \(what): \(PostgresStore.reason(error))")
        }
    }

    /// The Groupie database in the SQLite file at `path`, to copy from; a missing file, or one
    /// that is not a Groupie database, is said in one sentence and left as it was.
    static func openSQLite(_ path: String) throws -> SQLiteStore {
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("There is no SQLite database at \(path).") }
        do {
            return try SQLiteStore.openExisting(atPath: path)
        } catch let error as DatabaseFileError {
            throw CommandFailure(error.description)
        }
    }

    /// A logger for these commands: warnings and errors only.
    static var logger: Logger {
        var logger = Logger(label: "groupie")
        logger.logLevel = .warning
        return logger
    }
}

/// A command that could not do its work, said in one line, without the usage text that a
/// mistake in the command line gets.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
