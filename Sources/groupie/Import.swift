import ArgumentParser
import Foundation
import GroupieCore
import GroupiePostgres
import GroupieServer
import GroupieSQLite
import GroupieStorage

/// `groupie import`: the move from one instance on SQLite to several on PostgreSQL, or back.
/// Copies every row of a SQLite database (a data folder's, or one venue's from `groupie export`)
/// into the database `serve` uses (PostgreSQL, or the data folder's SQLite), in one transaction;
/// the photo files stay where they are, in the data folder the instances share.
struct Import: AsyncParsableCommand {
    /// What a data folder holds, or what was copied, as the import and export print it.
    static func counts(players: Int, groups: Int, photos: Int) -> String {
        [EnglishCount.of(players, "player"), EnglishCount.of(groups, "group"), EnglishCount.of(photos, "photo")].joined(separator: ", ")
    }

    static let configuration = CommandConfiguration(
        abstract: "Copy a SQLite database (groupie.sqlite, or a venue's export) into the PostgreSQL or SQLite database that serve uses.",
        discussion: "Stop the instance the file comes from first. The database imported into is named by --database or GROUPIE_DATABASE, else it is the SQLite database of the data folder (--data or GROUPIE_DATA), which is made if missing; it may hold other venues already, but none of these groups. Only the file's groups and their players are copied, each row checked first: a row that does not belong, or holds a value no Groupie writes, refuses the whole file with its table and number. Staff accounts are copied only when named with --staff."
    )

    @Option(name: .customLong("from"), help: "The SQLite file, such as ./data/groupie.sqlite.")
    var from: String
    @Option(
        name: .customLong("staff"),
        help: "A staff account of the file to copy too, by e-mail, with its venues and audit lines (repeat for several). No account is copied unless named; sessions never are."
    )
    var staff: [String] = []
    @OptionGroup var options: StoreOptions

    func run() async throws {
        let configuration = try options.configuration
        let source = try StoreOptions.openSQLite(from)
        let filter = ImportFilter(staff: Set(staff))
        let copied: [(table: String, rows: Int)]
        let counts: RowCounts
        let shown: String
        if let url = configuration.databaseURL {
            let (store, name) = try await StoreOptions.openPostgres(url, doing: "opened")
            defer { store.close() }
            do {
                copied = try await store.importRows(from: source, filter: filter)
            } catch let error as PostgresStoreError {
                throw CommandFailure(error.description)
            } catch let error as ImportRefusal {
                throw CommandFailure(error.description)
            }
            (counts, shown) = (try await store.counts(), name)
        } else {
            let path = configuration.dataFolder.database
            guard URL(fileURLWithPath: path).standardizedFileURL != URL(fileURLWithPath: from).standardizedFileURL else {
                throw CommandFailure("\(from) is the data folder's own database: name another data folder with --data, or a PostgreSQL database with --database.")
            }
            try FileManager.default.createDirectory(atPath: configuration.dataDirectory, withIntermediateDirectories: true)
            let store = try SQLiteStore.open(atPath: path)
            do {
                copied = try await store.importRows(fromFile: from, filter: filter)
            } catch let error as ImportError {
                throw CommandFailure(error.description)
            } catch let error as ImportRefusal {
                throw CommandFailure(error.description)
            }
            (counts, shown) = (try await store.counts(), path)
        }
        for (table, rows) in copied where rows > 0 {
            print("\(table): \(EnglishCount.of(rows, "row"))")
        }
        func rows(_ table: String) -> Int { copied.first { $0.table == table }?.rows ?? 0 }
        let imported = Self.counts(players: rows("player"), groups: rows("play_group"), photos: rows("photo"))
        let holds = Self.counts(players: counts.players, groups: counts.groups, photos: counts.photos)
        print("imported into \(shown): \(imported)" + (imported == holds ? "" : "; it now holds \(holds)"))
    }
}
