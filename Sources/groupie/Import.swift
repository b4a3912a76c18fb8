import ArgumentParser
import Foundation
import GroupiePostgres
import GroupieServer
import GroupieStorage

/// `groupie import`: the move from one instance on SQLite to several on PostgreSQL. Copies every
/// row of a SQLite database (a data folder's, or one venue's from `groupie export`) into a
/// PostgreSQL database, in one transaction; the photo files stay where they are, in the data
/// folder the instances share.
struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy a SQLite database (groupie.sqlite, or a venue's export) into a PostgreSQL database.",
        discussion: "Stop the SQLite instance first. The PostgreSQL database is named by --database or GROUPIE_DATABASE; it may hold other venues already, but none of these groups."
    )

    @Option(name: .customLong("from"), help: "The SQLite file, such as ./data/groupie.sqlite.")
    var from: String
    @OptionGroup var options: StoreOptions

    func run() async throws {
        let configuration = try options.configuration
        guard let url = configuration.databaseURL else {
            throw ValidationError("Name the PostgreSQL database to import into with --database postgres://… (or GROUPIE_DATABASE).")
        }
        let source = try StoreOptions.openSQLite(from)
        let (store, shown) = try await StoreOptions.openPostgres(url, doing: "opened")
        defer { store.close() }
        do {
            for (table, rows) in try await store.importRows(from: source) where rows > 0 {
                print("\(table): \(rows) row\(rows == 1 ? "" : "s")")
            }
        } catch let error as PostgresStoreError {
            throw CommandFailure(error.description)
        }
        let counts = try await store.counts()
        print("imported into \(shown): \(counts.players) players, \(counts.groups) groups, \(counts.photos) photos")
    }
}
