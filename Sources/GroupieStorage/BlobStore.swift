import Foundation

/// Photo files on disk, named by the SHA-256 of the original: `blobs/ab/abcdef….jpg` for the
/// original as received, with `-display.jpg` and `-thumb.jpg` beside it.
///
/// A file is written under a temporary name, fsynced, renamed into place and its folder
/// fsynced, all before the database row that points to it commits: a photo the server
/// answered 201 for survives a crash the next instant.
public struct BlobStore: Sendable {
    public let directory: String
    /// This instance's folder for files being written, under `tmp/`.
    public let temporary: TemporaryFolder

    /// Opens the folder, with a temporary folder of this instance's own in `tmp/`.
    public init(directory: String) throws {
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        temporary = try TemporaryFolder(root: directory + "/tmp")
    }

    /// Where temporary files go: on the same file system, so that a rename is atomic, and in
    /// this instance's own folder, so that another instance's start leaves them alone.
    public var temporaryDirectory: String { temporary.path }

    /// Whether `name` can name a photo's files: a full SHA-256 in lowercase hex, as every photo
    /// is named. Nothing else ever becomes a path, so that no stored value (an imported row, say)
    /// can reach a file outside its own photo's: not `""`, whose prefix is every file.
    public static func isBlobName(_ name: String) -> Bool {
        name.utf8.count == 64 && name.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The variants' suffixes are the server's own words: a letter, digit, `-` or `.`, and no `/`.
    static func isVariant(_ variant: String) -> Bool {
        variant.count <= 32 && !variant.contains("..")
            && variant.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7a).contains($0) || $0 == 0x2d || $0 == 0x2e }
    }

    /// The file of `blob`'s `variant`; a name that is not a photo's is refused.
    public func path(blob: String, variant: String) throws -> String {
        guard Self.isBlobName(blob), Self.isVariant(variant) else { throw NotABlobName(name: blob) }
        return "\(directory)/\(blob.prefix(2))/\(blob)\(variant)"
    }

    /// Moves `temporary` to its place for `blob` durably; an existing file (the same bytes,
    /// by construction) is kept and the temporary one removed.
    public func store(_ temporary: String, blob: String, variant: String) throws {
        let destination = try path(blob: blob, variant: variant)
        let folder = (destination as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: destination) {
            try? FileManager.default.removeItem(atPath: temporary)
            return
        }
        // Readable by the service user only, whatever made the file.
        _ = chmod(temporary, 0o600)
        try Self.fsync(path: temporary)
        guard rename(temporary, destination) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: destination])
        }
        try Self.fsync(path: folder)
    }

    /// Removes every file of `blob`: the original and whatever was derived from it. A name that
    /// is not a photo's removes nothing.
    public func removeFiles(of blob: String) {
        guard Self.isBlobName(blob) else { return }
        let folder = "\(directory)/\(blob.prefix(2))"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(blob) {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    /// Removes temporary files that instances which no longer run (a crash, a restart) left
    /// behind; called at start. Those of instances still running stay.
    public func removeTemporaryFiles() {
        temporary.removeAbandoned()
    }

    public static func fsync(path: String) throws {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: path]) }
        defer { close(descriptor) }
        guard Glibc.fsync(descriptor) == 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
    }
}

/// A name given as a photo's files that is not one: nothing is read, written or removed.
public struct NotABlobName: Error, CustomStringConvertible {
    public let name: String
    public var description: String { "'\(name.prefix(80))' is not the name of a photo's files (a SHA-256 in hex)" }
}
