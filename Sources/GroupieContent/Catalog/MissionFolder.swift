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
    /// it, sorted), and the files that look like mission files but are not read (`*.yml`), each
    /// with the problem that says so, so that staff who named a file the other common way learn
    /// why their venue is missing.
    public func listing() throws -> (missionFiles: [String], misnamed: [MissionProblem]) {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }.sorted()
        return (
            names.filter { $0.hasSuffix(".yaml") }.map { directory + "/" + $0 },
            names.filter { $0.hasSuffix(".yml") }.map {
                MissionProblem(path: directory + "/" + $0, line: 1, column: 1, severity: .error, message: MissionMessages.misnamed(file: $0))
            }
        )
    }

    /// Paths of the mission files, sorted: every `*.yaml` directly in the folder.
    public func missionFiles() throws -> [String] {
        try listing().missionFiles
    }

    /// Reads every mission file; each report says whether the file is valid and why not.
    public func readAll() throws -> [MissionFileReport] {
        try missionFiles().map(reader.read(fileAt:))
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
