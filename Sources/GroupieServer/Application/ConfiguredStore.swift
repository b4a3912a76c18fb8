import Foundation
import GroupiePostgres
import GroupieSQLite
import GroupieStorage
import Logging

/// Opens the store the configuration names: PostgreSQL for a `postgres://` URL, else SQLite in
/// the data folder. `serve`, `migrate` and `staff` open it the same way. The one place in the
/// server that names a backend's type.
public enum ConfiguredStore {
    /// A database URL as logs and `/readyz` may show it: the password replaced by `***`.
    static func shown(_ url: String) -> String {
        (try? PostgresURL(url).redacted) ?? "postgres://"
    }

    /// Throws, saying why, when `url` is no database URL the server can use.
    static func check(url: String) throws {
        _ = try PostgresURL(url)
    }

    /// A PostgreSQL that does not answer yet is waited for up to `patience`: `serve` waits for a
    /// database started beside it (by the same compose file or unit); the commands do not, and
    /// keep no PostgreSQL connection open beyond their job (`ready`).
    public static func open(_ configuration: ServerConfiguration, logger: Logger, patience: Duration = .zero, ready: Bool = true) async throws -> any GroupieStore {
        if let url = configuration.databaseURL {
            let shown = shown(url)
            do {
                let store = try await PostgresStore.open(url: url, logger: logger, patience: patience, ready: ready)
                logger.info("storing in PostgreSQL at \(shown)")
                return store
            } catch {
                throw StartupError(description: "The PostgreSQL database \(shown) cannot be opened: \(PostgresStore.reason(error))")
            }
        }
        let path = configuration.dataFolder.database
        if FileManager.default.fileExists(atPath: path) { try checkSQLiteFile(path, logger: logger) }
        do {
            let database = try SQLiteStore.open(atPath: path, logger: logger)
            // All read back from SQLite: `open` refuses a writer that is not FULL or that would
            // checkpoint in its commits.
            let statistics = SQLiteStore.keepsMemoryStatistics ? "on" : "off"
            logger.info("storing in SQLite at \(StartupCheck.absolute(path)) (synchronous FULL, checkpoints beside the writer, memory statistics \(statistics))")
            return database
        } catch where SQLiteStore.isNotADatabase(error) {
            throw StartupError(description: SQLiteStore.notADatabase(StartupCheck.absolute(path)) + ".")
        } catch {
            throw StartupError(description: "The database \(StartupCheck.absolute(path)) cannot be opened: \(error)")
        }
    }
}

extension ConfiguredStore {
    /// How long `serve` lets SQLite's check of the file run at start: a file of several
    /// gigabytes is served unchecked rather than kept waiting (`groupie doctor` checks it whole).
    static let quickCheckLimit: Duration = .seconds(30)

    /// Refuses, in one sentence each, a SQLite file this user cannot write (SQLite would open it
    /// read-only and fail every write) and one that fails SQLite's `quick_check`.
    static func checkSQLiteFile(_ path: String, logger: Logger) throws {
        let shown = StartupCheck.absolute(path)
        if let reason = SQLiteStore.unwritable(path) {
            throw StartupError(description: "The database \(shown) is read-only to the server: \(reason); give the service's user write access to it (and its -wal and -shm files).")
        }
        let started = ContinuousClock.now
        let check: String?
        do {
            check = try SQLiteStore.quickCheck(ofFileAt: path, within: quickCheckLimit)
        } catch DatabaseFileError.notSQLite {
            throw StartupError(description: SQLiteStore.notADatabase(shown) + ".")
        } catch {
            throw StartupError(description: "The database \(shown) cannot be read: \(error)")
        }
        switch check {
        case "ok":
            logger.info("the database \(shown) passes SQLite's quick check (\((ContinuousClock.now - started).formatted(.units(allowed: [.milliseconds]))))")
        case nil:
            logger.warning("SQLite's quick check of \(shown) did not finish within \(quickCheckLimit) and was stopped; serving on. Run groupie doctor to check the whole file.")
        case let found?:
            throw StartupError(description: "The database \(shown) is damaged (SQLite's check found: \(found.prefix(200))); stop, move it aside and restore the data folder from a backup (groupie restore).")
        }
    }
}
