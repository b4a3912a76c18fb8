import Foundation
import GroupieStorage

/// `groupie restore SRC`: a backup made by `groupie backup` put back as a data folder. Nothing
/// changes before every file of the backup matches its manifest; the data folder is made
/// beside the target and takes its place in one rename, so a restore that fails half-way
/// leaves the target as it was. A data folder that a server uses is never replaced, and one
/// that holds data is replaced only when asked (`replace`), and kept beside under another name.
public enum DataRestore {
    public struct Summary: Sendable {
        public var manifest: BackupManifest
        /// Where the data folder that was replaced now is, if one was.
        public var keptAt: String?
    }

    /// `checkDatabase(path)` returns SQLite's integrity check of the restored database ("ok").
    public static func run(
        from source: String, into dataDirectory: String, replace: Bool, now: Date = Date(),
        checkDatabase: (String) throws -> String
    ) throws -> Summary {
        let manifest = try BackupManifest.read(from: source)
        let problems = manifest.problems(in: source)
        guard problems.isEmpty else {
            let shown = problems.prefix(5).joined(separator: "; ") + (problems.count > 5 ? "; and \(problems.count - 5) more" : "")
            throw OperationFailure("The backup in \(source) does not match its manifest: \(shown). Nothing was changed.")
        }
        let target = dataDirectory.hasSuffix("/") && dataDirectory.count > 1 ? String(dataDirectory.dropLast()) : dataDirectory
        var isFolder: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: target, isDirectory: &isFolder)
        if exists, !isFolder.boolValue {
            throw OperationFailure("\(target) is a file, not a data folder. Nothing was changed.")
        }
        if let running = runningInstance(in: target) {
            throw OperationFailure("A Groupie server is using \(target) (instance \(running)); stop every server that uses it first. Nothing was changed.")
        }
        let holdsData = exists && ((try? FileManager.default.contentsOfDirectory(atPath: target)) ?? []).contains { !$0.hasPrefix(".") }
        if holdsData, !replace {
            throw OperationFailure("\(target) holds a data folder already; restore into a new folder, or add --replace to put it aside and restore in its place. Nothing was changed.")
        }

        // Made beside the target, on the same file system, so that it can take its place at once.
        let parent = (target as NSString).deletingLastPathComponent
        let staging = (parent.isEmpty ? "." : parent) + "/." + (target as NSString).lastPathComponent + ".restoring-" + UUID().uuidString.prefix(8)
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var done = false
        defer { if !done { try? FileManager.default.removeItem(atPath: staging) } }
        for path in manifest.files.keys.sorted() {
            let copied = try FileCopy.copy(source + "/" + path, to: staging + "/" + path)
            guard copied.sha256 == manifest.files[path]?.sha256 else {
                throw OperationFailure("\(source)/\(path) changed while it was restored. Nothing was changed.")
            }
        }
        if manifest.files[DataBackup.database] != nil {
            let check = try checkDatabase(staging + "/" + DataBackup.database)
            guard check == "ok" else {
                throw OperationFailure("The restored database fails SQLite's integrity check (\(check)). Nothing was changed.")
            }
        }
        try FileManager.default.createDirectory(atPath: DataFolder(staging).blobs, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try BlobStore.fsync(path: staging)

        var keptAt: String?
        if exists {
            if holdsData {
                let stamp = ISO8601DateFormatter().string(from: now).replacingOccurrences(of: ":", with: "")
                keptAt = target + ".before-restore-" + stamp
                try FileCopy.rename(target, to: keptAt!)
            } else {
                try FileManager.default.removeItem(atPath: target)
            }
        }
        try FileCopy.rename(staging, to: target)
        done = true
        try? BlobStore.fsync(path: parent.isEmpty ? "." : parent)
        return Summary(manifest: manifest, keptAt: keptAt)
    }

    /// The instance that holds the lock of its temporary folder in `dataDirectory`, if one does:
    /// every running server holds one for as long as it runs.
    static func runningInstance(in dataDirectory: String) -> String? {
        runningInstances(in: dataDirectory).first
    }

    static func runningInstances(in dataDirectory: String) -> [String] {
        let root = dataDirectory + "/blobs/tmp"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return names.sorted().filter { !$0.hasPrefix(".") && TemporaryFolder.isRunning($0, root: root) }
    }
}
