import Foundation
import GroupieCore
import Logging

/// The missions folder on disk: which mission files it holds, and which changed since the last look.
public struct MissionFolder: Sendable {
    /// What a file looked like when it was last read; a different signature means read it again.
    struct Signature: Hashable, Sendable {
        var modified: ModificationTime
        var size: Int64
        var inode: UInt64
    }

    public let directory: String
    public let reader: MissionFileReader

    public init(directory: String, assetsDirectory: String?) {
        self.directory = directory
        self.reader = MissionFileReader(assetsDirectory: assetsDirectory)
    }

    /// What the folder holds, from one listing: the mission files (every `*.yaml` directly in
    /// it that is a regular file, or a link to one, sorted), and the files that are not read,
    /// each with the problem that says why: `*.yml` (staff who named a file the other common
    /// way learn why their venue is missing), and a `*.yaml` that is not a regular file (a
    /// FIFO or a device would block the reader, a folder cannot be read).
    public func listing() throws -> (missionFiles: [String], skipped: [MissionProblem]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        var missionFiles: [String] = [], skipped: [MissionProblem] = []
        for name in names {
            let path = directory + "/" + name
            if name.hasSuffix(".yml") {
                skipped.append(MissionProblem(path: path, line: 1, column: 1, severity: .error, message: MissionMessages.misnamed(file: name)))
            } else if name.hasSuffix(".yaml") {
                if let kind = Self.nonRegularKind(path) {
                    skipped.append(MissionProblem(path: path, line: 1, column: 1, severity: .error, message: MissionMessages.notRegularFile(kind: kind)))
                } else {
                    missionFiles.append(path)
                }
            }
        }
        return (missionFiles, skipped)
    }

    /// What `path` is when it is not a regular file (after links), in words; nil for a regular
    /// file, or for one gone since the listing (reading it then says so).
    static func nonRegularKind(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return MissionFileReader.kind(of: info.st_mode)
    }

    /// Paths of the mission files, sorted: every `*.yaml` directly in the folder.
    public func missionFiles() throws -> [String] {
        try listing().missionFiles
    }

    static func signature(of path: String) -> Signature? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Signature(
            modified: ModificationTime(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int64(info.st_mtim.tv_nsec)),
            size: Int64(info.st_size),
            inode: UInt64(info.st_ino)
        )
    }
}

struct ModificationTime: Hashable, Sendable {
    var seconds: Int64
    var nanoseconds: Int64
}
