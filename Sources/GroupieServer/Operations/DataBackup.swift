import Foundation
import GroupieStorage

/// `groupie backup DEST`: a copy of a data folder that can be restored, made while the server
/// runs. The database first (SQLite's online backup: the transactions committed before it
/// began), then the photo files, which are written before the rows that name them commit, so
/// every photo of the copied database has its files; then the signing key and the versions of
/// the mission files saved from the console, and last the manifest with every file's checksum.
/// Photo files never change once written: a file the backup folder has already, with the size
/// its manifest gives, is not copied again, and one the data folder no longer has goes from the
/// backup too; the key and the saved versions are copied again when their checksum changed. The
/// summary counts every file copied. Collages are left out: they are
/// drawn again when asked for.
public enum DataBackup {
    public struct Summary: Sendable {
        public var backend: String
        public var files: Int
        public var copied: Int
        public var removed: Int
        public var copiedBytes: Int64
    }

    /// The files of a data folder that a backup holds, beside the database.
    static let signingKey = DataFolder.signingKeyName
    static let missionHistory = DataFolder.missionHistoryName
    static let database = DataFolder.databaseName

    /// `copyDatabase(source, destination)` makes the SQLite copy and returns its migrations;
    /// nil for a PostgreSQL data folder, whose database is dumped with `pg_dump` instead.
    public static func run(
        dataDirectory: String, to destination: String, now: Date = Date(),
        copyDatabase: ((String, String) throws -> [String])?
    ) throws -> Summary {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: DataFolder(dataDirectory).blobs, isDirectory: &isFolder), isFolder.boolValue else {
            throw OperationFailure("\(dataDirectory) is not a Groupie data folder (it has no blobs/ folder). Nothing was written.")
        }
        if copyDatabase != nil, !FileManager.default.fileExists(atPath: dataDirectory + "/" + database) {
            throw OperationFailure("\(dataDirectory) has no \(database); with PostgreSQL, name the database with --database. Nothing was written.")
        }
        if FileManager.default.fileExists(atPath: destination, isDirectory: &isFolder), !isFolder.boolValue {
            throw OperationFailure("\(destination) is a file; name a folder to back up into. Nothing was written.")
        }
        if (try? FileManager.default.contentsOfDirectory(atPath: destination))?.contains(where: { !$0.hasPrefix(".") }) == true,
            !FileManager.default.fileExists(atPath: destination + "/" + BackupManifest.name),
            !FileManager.default.fileExists(atPath: DataFolder(destination).blobs)
        {
            throw OperationFailure("\(destination) holds files that are not a Groupie backup; name an empty folder or an earlier backup. Nothing was written.")
        }
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        _ = chmod(destination, 0o700)
        // Known checksums of the files an earlier backup here copied; its manifest goes first,
        // so that a backup stopped half-way is not taken for a whole one.
        let earlier = (try? BackupManifest.read(from: destination))?.files ?? [:]
        unlink(destination + "/" + BackupManifest.name)

        var files: [String: BackupManifest.File] = [:]
        var summary = Summary(backend: copyDatabase == nil ? "postgresql" : "sqlite", files: 0, copied: 0, removed: 0, copiedBytes: 0)
        var migrations: [String] = []
        if let copyDatabase {
            let partial = destination + "/." + database + ".partial"
            unlink(partial)
            defer { unlink(partial) }
            migrations = try copyDatabase(dataDirectory + "/" + database, partial)
            _ = chmod(partial, 0o600)
            let sha256 = try FileCopy.sha256(of: partial)
            try BlobStore.fsync(path: partial)
            try FileCopy.rename(partial, to: destination + "/" + database)
            let size = FileCopy.size(of: destination + "/" + database) ?? 0
            files[database] = .init(size: size, sha256: sha256)
            summary.copied += 1
            summary.copiedBytes += size
        } else {
            unlink(destination + "/" + database)
        }

        /// Copies `path` unless the backup holds it already, as its manifest says: the same size
        /// there as here and, for a file that could change in place (`verify`), the same checksum.
        func copy(_ path: String, verify: Bool = false) throws {
            let source = dataDirectory + "/" + path, target = destination + "/" + path
            if let known = earlier[path], let size = FileCopy.size(of: target), size == known.size, size == FileCopy.size(of: source),
                !verify || (try? FileCopy.sha256(of: source)) == known.sha256
            {
                files[path] = known
                return
            }
            // Removed meanwhile (a photo deleted): neither the manifest nor the folder keeps it.
            guard FileCopy.size(of: source) != nil else {
                unlink(target)
                return
            }
            let copied: (size: Int64, sha256: String)
            do {
                copied = try FileCopy.copy(source, to: target)
            } catch where FileCopy.size(of: source) == nil {
                unlink(target)  // removed while it was copied
                return
            }
            files[path] = .init(size: copied.size, sha256: copied.sha256)
            summary.copied += 1
            summary.copiedBytes += copied.size
        }

        // The photo files, after the database: every row of the copy names files written before it.
        let present = Set(FileCopy.files(under: DataFolder(dataDirectory).blobs, skipping: ["tmp"]).map { "blobs/" + $0 })
        for path in present.sorted() { try copy(path) }
        for path in FileCopy.files(under: DataFolder(destination).blobs).map({ "blobs/" + $0 }) where !present.contains(path) {
            unlink(destination + "/" + path)
            summary.removed += 1
        }
        try copy(signingKey, verify: true)
        // The versions of the mission files saved from the staff console, with who saved them.
        for path in FileCopy.files(under: dataDirectory + "/" + Self.missionHistory).map({ Self.missionHistory + "/" + $0 }) {
            try copy(path, verify: true)
        }
        try BlobStore.fsync(path: destination)
        summary.files = files.count
        try BackupManifest(format: BackupManifest.currentFormat, createdAt: now, backend: summary.backend, migrations: migrations, files: files)
            .write(to: destination)
        try BlobStore.fsync(path: destination)
        return summary
    }
}
