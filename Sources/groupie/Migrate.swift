import ArgumentParser
import Foundation
import GroupieServer
import GroupieSQLite
import GroupieStorage

/// `groupie migrate`: brings the database to this version's schema without serving, so that an
/// upgrade of several instances can migrate once before they restart. `serve` migrates at start
/// too; two instances starting at once on PostgreSQL take turns under an advisory lock.
struct Migrate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Bring the database to the current schema, then exit.")

    @OptionGroup var options: StoreOptions

    func run() async throws {
        let configuration = try options.configuration
        guard let url = configuration.databaseURL else {
            let isNew = try StoreOptions.newSQLite(configuration, creating: true)
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            do {
                _ = try SQLiteStore.open(atPath: configuration.dataFolder.database)
            } catch where SQLiteStore.isNotADatabase(error) {
                throw CommandFailure(SQLiteStore.notADatabase(configuration.dataFolder.database) + ". Nothing was changed.")
            }
            if isNew { StoreOptions.tellMade(configuration) }
            print("SQLite database \(configuration.dataFolder.database) is at the current schema")
            return
        }
        let (store, shown) = try await StoreOptions.openPostgres(url, doing: "migrated")
        defer { store.close() }
        let versions = try await store.appliedMigrations()
        print("PostgreSQL database \(shown) is at the current schema (migrations \(versions.map(String.init).joined(separator: ", ")))")
    }
}
