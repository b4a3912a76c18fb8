import ArgumentParser
import Foundation
import GroupieServer
import GroupieSQLite
import GroupieStorage

/// `groupie export`: one venue's visits from the SQLite database of a data folder, as a SQLite
/// file of their own, for `groupie import` into a PostgreSQL database that other venues may use
/// already: the move to several instances, a venue at a time.
struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write one venue's groups, players, photos, events and staff to a new SQLite file.",
        discussion: "Reads the SQLite database of the data folder (--data or GROUPIE_DATA), which a server may keep serving meanwhile. The photo files stay in the data folder. GROUPIE_DATABASE, set for the PostgreSQL instances the export goes to, is not read."
    )

    @Option(name: .customLong("venue"), help: "The venue's id, as its mission file is named.")
    var venue: String
    @Option(name: .customLong("to"), help: "The new SQLite file to write, such as ./aquarium.sqlite.")
    var to: String
    /// Only a data folder: an export reads SQLite, and the shell that runs it is often the one
    /// with GROUPIE_DATABASE set for the import that follows.
    @Option(name: .customLong("data"), help: "The data folder of the SQLite server (default: GROUPIE_DATA, else ./data).")
    var data: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let folder = [data, environment["GROUPIE_DATA"]].compactMap { $0 }.first { !$0.isEmpty } ?? ServerConfiguration().dataDirectory
        let path = folder + "/groupie.sqlite"
        let source = try StoreOptions.openSQLite(path)
        let counts: RowCounts
        do {
            counts = try await source.exportVenue(venue, to: to)
        } catch let error as ExportError {
            throw CommandFailure(error.description)
        }
        print("exported \(venue) to \(to): \(counts.players) players, \(counts.groups) groups, \(counts.photos) photos")
    }
}
