import ArgumentParser
import Foundation
import GroupiePostgres
import GroupieServer
import GroupieSQLite
import GroupieStorage

/// `groupie migrate`: brings the database to this version's schema without serving, so that an
/// upgrade of several instances can migrate once before they restart. `serve` migrates at start
/// too; two instances starting at once on PostgreSQL take turns under an advisory lock.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Bring the database to the current schema, then exit.",
        discussion: "Each migration applied is printed with its number and what it does; --dry-run prints them without applying any."
    )

    @OptionGroup var options: StoreOptions

    @Flag(help: "Say which migrations would be applied, and change nothing.")
    var dryRun = false

    func run() async throws {
        let configuration = try options.configuration
        guard let url = configuration.databaseURL else {
            let path = configuration.dataFolder.database
            let pending: [String]
            do {
                pending = try SQLiteStore.pendingMigrations(atPath: path)
            } catch where SQLiteStore.isNotADatabase(error) {
                throw CommandFailure(SQLiteStore.notADatabase(path) + ". Nothing was changed.")
            } catch {
                throw CommandFailure("The SQLite database \(path) cannot be read: \(error). Nothing was changed.")
            }
            if dryRun {
                Self.tell(pending, database: "SQLite database \(path)", wouldApply: true)
                return
            }
            let isNew = try StoreOptions.newSQLite(configuration, creating: true)
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            do {
                _ = try SQLiteStore.open(atPath: path)
            } catch where SQLiteStore.isNotADatabase(error) {
                throw CommandFailure(SQLiteStore.notADatabase(path) + ". Nothing was changed.")
            }
            if isNew { StoreOptions.tellMade(configuration) }
            Self.tell(pending, database: "SQLite database \(path)", wouldApply: false)
            return
        }
        let shown = try PostgresURL(url).redacted
        let pending: [String]
        do {
            pending = try await PostgresStore.pendingMigrations(url: url, logger: StoreOptions.logger)
        } catch {
            throw CommandFailure("The PostgreSQL database \(shown) cannot be \(dryRun ? "read" : "migrated"): \(PostgresStore.reason(error))")
        }
        if dryRun {
            Self.tell(pending, database: "PostgreSQL database \(shown)", wouldApply: true)
            return
        }
        let (store, _) = try await StoreOptions.openPostgres(url, doing: "migrated")
        defer { store.close() }
        Self.tell(pending, database: "PostgreSQL database \(shown)", wouldApply: false)
    }

    /// One line per migration, then where the database stands.
    static func tell(_ migrations: [String], database: String, wouldApply: Bool) {
        for migration in migrations { print("\(wouldApply ? "would apply" : "applied") migration \(migration)") }
        if wouldApply {
            print(migrations.isEmpty ? "\(database) is at the current schema: nothing to apply" : "\(database): \(migrations.count) migration(s) to apply; nothing was changed")
        } else {
            print("\(database) is at the current schema")
        }
    }
}
