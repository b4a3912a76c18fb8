import Crypto
import Foundation
import GroupieCore

/// `manifest.json` of a backup: what it holds, each file with its size and SHA-256, so that a
/// restore can tell a whole backup from a damaged or unfinished one. Written last: a backup
/// folder without it was not finished.
public struct BackupManifest: Codable, Sendable, Equatable {
    public struct File: Codable, Sendable, Equatable {
        public var size: Int64
        public var sha256: String
    }

    public static let name = "manifest.json"
    /// The layout of backups this version writes and reads.
    public static let currentFormat = 1

    public var format: Int
    public var createdAt: Date
    /// `sqlite`: the database is `groupie.sqlite` in the backup; `postgresql`: it is not, and
    /// is restored from its `pg_dump`.
    public var backend: String
    /// The schema's migrations in the copied SQLite database; empty for PostgreSQL.
    public var migrations: [String]
    /// Every file, by its path inside the backup (and inside the data folder it came from).
    public var files: [String: File]

    static func read(from folder: String) throws -> BackupManifest {
        let path = folder + "/" + name
        guard let data = FileManager.default.contents(atPath: path) else {
            throw OperationFailure("\(folder) holds no \(name): it is not a backup, or its backup did not finish. Nothing was changed.")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let manifest: BackupManifest
        do {
            manifest = try decoder.decode(BackupManifest.self, from: data)
        } catch {
            throw OperationFailure("\(path) cannot be read as a backup's manifest (\(error)). Nothing was changed.")
        }
        guard manifest.format == currentFormat else {
            throw OperationFailure("\(path) describes a backup of format \(manifest.format), which this Groupie does not read (it reads format \(currentFormat)). Nothing was changed.")
        }
        for path in manifest.files.keys where !isSafe(path) {
            throw OperationFailure("\(name) names the file '\(path)', which is not a place in a data folder. Nothing was changed.")
        }
        return manifest
    }

    /// Written beside, synced and renamed into place: a manifest is there whole or not at all.
    func write(to folder: String) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let temporary = folder + "/." + Self.name + ".partial"
        try FileCopy.writeDurably(try encoder.encode(self), to: temporary)
        try FileCopy.rename(temporary, to: folder + "/" + Self.name)
    }

    /// The files that are missing from `folder` or differ from what the manifest says, each in
    /// a sentence; empty when the backup is whole.
    func problems(in folder: String) -> [String] {
        files.keys.sorted().compactMap { path in
            guard let expected = files[path] else { return nil }
            let full = folder + "/" + path
            guard let size = FileCopy.size(of: full) else { return "\(path) is missing" }
            guard size == expected.size else { return "\(path) has \(size) bytes, not \(expected.size)" }
            guard let digest = try? FileCopy.sha256(of: full) else { return "\(path) cannot be read" }
            return digest == expected.sha256 ? nil : "\(path) does not have the checksum the manifest gives"
        }
    }

    /// A relative path that stays inside the folder: no `..`, no leading `/`, no empty part.
    static func isSafe(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return !path.hasPrefix("/") && !parts.isEmpty && parts.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }
}

/// Something `groupie backup`, `restore` or `doctor` could not do, said in one sentence.
public struct OperationFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Copies of files made for backups: hashed on the way, synced, renamed into place, readable
/// by the service user only.
enum FileCopy {
    static let chunk = 1 << 20

    /// Copies `source` to `destination` (through a temporary file beside it) and returns the
    /// SHA-256 of what was copied, in hex.
    static func copy(_ source: String, to destination: String) throws -> (size: Int64, sha256: String) {
        try FileManager.default.createDirectory(
            atPath: (destination as NSString).deletingLastPathComponent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = destination + ".partial"
        defer { unlink(temporary) }
        guard let input = FileHandle(forReadingAtPath: source) else { throw OperationFailure("\(source) cannot be read.") }
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw OperationFailure("\(temporary) cannot be written: \(String(cString: strerror(errno))).")
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
        var hasher = SHA256()
        var size: Int64 = 0
        do {
            defer { try? output.close() }
            while let data = try input.read(upToCount: chunk), !data.isEmpty {
                hasher.update(data: data)
                size += Int64(data.count)
                try output.write(contentsOf: data)
            }
            try output.synchronize()
        }
        try rename(temporary, to: destination)
        return (size, Hex.string(hasher.finalize()))
    }

    static func writeDurably(_ data: Data, to path: String) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw OperationFailure("\(path) cannot be written: \(String(cString: strerror(errno))).")
        }
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? output.close() }
        try output.write(contentsOf: data)
        try output.synchronize()
    }

    static func rename(_ from: String, to destination: String) throws {
        guard Glibc.rename(from, destination) == 0 else {
            throw OperationFailure("\(from) cannot be renamed to \(destination): \(String(cString: strerror(errno))).")
        }
    }

    static func sha256(of path: String) throws -> String {
        guard let input = FileHandle(forReadingAtPath: path) else { throw OperationFailure("\(path) cannot be read.") }
        defer { try? input.close() }
        var hasher = SHA256()
        while let data = try input.read(upToCount: chunk), !data.isEmpty { hasher.update(data: data) }
        return Hex.string(hasher.finalize())
    }

    static func size(of path: String) -> Int64? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(status.st_size)
    }

    /// Every regular file under `folder`, as paths relative to it, leaving out the folders
    /// named in `skipping` (relative too).
    static func files(under folder: String, skipping: Set<String> = []) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found: [String] = []
        for case let relative as String in walker {
            if skipping.contains(relative) {
                walker.skipDescendants()
                continue
            }
            if size(of: folder + "/" + relative) != nil { found.append(relative) }
        }
        return found.sorted()
    }
}
