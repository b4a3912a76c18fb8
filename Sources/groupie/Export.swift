import ArgumentParser
import Foundation
import GroupieCore
import GroupiePostgres
import GroupieServer
import GroupieSQLite
import GroupieStorage

/// `groupie export`: one venue's visits, from the SQLite database of a data folder or from a
/// PostgreSQL database, as a SQLite file of their own, for `groupie import` into another
/// database of either kind: the move to several instances, or back to one, a venue at a time.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one venue's groups, players, photos, events and staff to a new SQLite file.",
        discussion: "Reads the SQLite database of the data folder (--data or GROUPIE_DATA), or the PostgreSQL database named by --database, which a server may keep serving meanwhile. The photo files stay in the data folder. GROUPIE_DATABASE, often set in the shell for the import that follows, is not read: name the database to export from with --database."
    )

    @Option(name: .customLong("venue"), help: "The venue's id, as its mission file is named.")
    var venue: String
    @Option(name: .customLong("to"), help: "The new SQLite file to write, such as ./aquarium.sqlite.")
    var to: String
    /// Only a data folder: an export reads SQLite, and the shell that runs it is often the one
    /// with GROUPIE_DATABASE set for the import that follows.
    @Option(name: .customLong("data"), help: "The data folder of the SQLite server (default: GROUPIE_DATA, else ./data).")
    var data: String?
    @Option(name: .customLong("database"), help: "postgres://… to export from a PostgreSQL database instead of the data folder's SQLite.")
    var database: String?

    func run() async throws {
        let counts: RowCounts
        do {
            if let database, !database.isEmpty {
                guard PostgresURL.isPostgres(database) else { throw ValidationError("--database must be a postgres:// URL.") }
                let (store, _) = try await StoreOptions.openPostgres(database, doing: "read")
                defer { store.close() }
                counts = try await SQLiteStore.exportVenue(venue, from: store, to: to)
            } else {
                counts = try await StoreOptions.openSQLite(DataFolder.chosen(data).database).exportVenue(venue, to: to)
            }
        } catch let error as ExportError {
            throw CommandFailure(error.description)
        }
        print("exported \(venue) to \(to): " + Import.counts(players: counts.players, groups: counts.groups, photos: counts.photos))
    }
}
