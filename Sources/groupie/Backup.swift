import ArgumentParser
import Foundation
import GroupieCore
import GroupieServer
import GroupieSQLite
import GroupieStorage

/// `groupie backup DEST`: a copy of the data folder that `groupie restore` can put back, made
/// while the server runs. With PostgreSQL the database is dumped with `pg_dump` first (see
/// docs/operating.md); this copies the files beside it.
struct Backup: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the data folder (database, photos, signing key) into a backup folder, with a manifest of checksums.",
        discussion: """
            The server may keep serving meanwhile. Run it again into the same folder: photo files copied before are not copied again. \
            With PostgreSQL (--database or GROUPIE_DATABASE), dump the database with pg_dump first; this copies the photo files and the key.
            """
    )

    @Argument(help: "The backup folder: a new or empty one, or an earlier backup to bring up to date.")
    var destination: String
    @OptionGroup var options: StoreOptions

    func run() async throws {
        let configuration = try options.configuration
        let postgres = configuration.databaseURL != nil
        let summary: DataBackup.Summary
        do {
            summary = try DataBackup.run(
                dataDirectory: configuration.dataDirectory, to: destination,
                copyDatabase: postgres ? nil : { try SQLiteStore.backup(from: $0, to: $1) }
            )
        } catch let error as OperationFailure {
            throw CommandFailure(error.description)
        } catch let error as DatabaseFileError {
            throw CommandFailure("The database cannot be backed up: \(error.description)")
        }
        let megabytes = String(format: "%.1f", Double(summary.copiedBytes) / 1_048_576)
        print("backed up \(configuration.dataDirectory) to \(destination): \(EnglishCount.of(summary.files, "file")), \(summary.copied) copied (\(megabytes) MiB), \(summary.removed) removed")
        if postgres {
            print("the database is in PostgreSQL: keep its pg_dump, taken before this, beside this folder")
        }
    }
}

/// `groupie restore SRC`: a backup put back as the data folder, after its manifest's checks.
struct Restore: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Put a backup made by 'groupie backup' back as a data folder.",
        discussion: """
            Every file is checked against the backup's manifest before anything changes. A data folder that a server uses is never \
            replaced; one that holds data is replaced only with --replace, and kept beside it under another name.
            """
    )

    @Argument(help: "The backup folder, as 'groupie backup' wrote it.")
    var source: String
    @Option(name: .customLong("data"), help: "The data folder to restore into (default: GROUPIE_DATA, else ./data).")
    var data: String?
    @Flag(name: .customLong("replace"), help: "Put a data folder that holds data aside (renamed) and restore in its place.")
    var replace = false

    func run() async throws {
        let folder = DataFolder.chosen(data).path
        let summary: DataRestore.Summary
        do {
            summary = try DataRestore.run(from: source, into: folder, replace: replace) { try SQLiteStore.integrityCheck(ofFileAt: $0) }
        } catch let error as OperationFailure {
            throw CommandFailure(error.description)
        } catch let error as DatabaseFileError {
            throw CommandFailure("The restored database cannot be read: \(error.description) Nothing was changed.")
        }
        let made = ISO8601DateFormatter().string(from: summary.manifest.createdAt)
        print("restored the backup of \(made) into \(folder): \(EnglishCount.of(summary.manifest.files.count, "file")), every checksum as in its manifest")
        if let kept = summary.keptAt { print("the data folder that was there is kept at \(kept)") }
        if summary.manifest.backend == "postgresql" {
            print("the database is in PostgreSQL: restore its pg_dump too (pg_restore) before starting the servers")
        }
    }
}
