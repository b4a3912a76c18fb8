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

    /// Paths of the mission files, sorted: every `*.yaml` directly in the folder.
    public func missionFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasSuffix(".yaml") && !$0.hasPrefix(".") }
            .sorted()
            .map { directory + "/" + $0 }
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
