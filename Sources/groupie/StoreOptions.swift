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
            configuration.dataDirectory = given(data) ?? given(environment["GROUPIE_DATA"]) ?? configuration.dataDirectory
            if let url = given(database) ?? given(environment["GROUPIE_DATABASE"]), url != "sqlite" {
                guard PostgresURL.isPostgres(url) else { throw ValidationError("The database must be 'sqlite' or a postgres:// URL.") }
                configuration.databaseURL = url
            }
            return configuration
        }
    }

    func accounts() async throws -> StaffAccounts {
        let configuration = try configuration
        return try await StaffAccounts.open(dataDirectory: configuration.dataDirectory, databaseURL: configuration.databaseURL)
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
    static func openSQLite(_ path: String) throws -> GroupieDatabase {
        guard FileManager.default.fileExists(atPath: path) else { throw CommandFailure("There is no SQLite database at \(path).") }
        do {
            return try GroupieDatabase.openExisting(atPath: path)
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
