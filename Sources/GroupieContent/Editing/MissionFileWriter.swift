import Foundation
import Glibc
import Synchronization

/// Writes a mission file the way an editor in the browser saves it: only over the version the
/// editor opened, and atomically (a temporary file beside it, `fsync`, `rename`, then the
/// folder's `fsync`), so that the reloader and a venue kept in git only ever see a whole file.
public struct MissionFileWriter: Sendable {
    /// What a save found.
    public enum Outcome: Sendable, Equatable {
        /// Written; the file's hash now.
        case saved(hash: String)
        /// The file changed on disk since the editor opened it: its text and hash now (an empty
        /// hash when the file is gone).
        case changedOnDisk(current: String, hash: String)
    }

    /// One lock for every save of the process: saves are rare, and a check of the version on
    /// disk and the rename after it must not interleave with another save's.
    private static let saving = Mutex(())

    public init() {}

    /// The file's text and hash now; nil when it does not exist.
    public static func current(_ path: String) throws -> (text: String, hash: String)? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        guard bytes.count <= MissionFileReader.maxFileSize else { throw MissionFileTooLarge() }
        return (String(decoding: bytes, as: UTF8.self), MissionFileReader.hash(bytes))
    }

    /// Writes `text` to `path` when the file's hash on disk is still `base` (the empty string
    /// for a file that must not exist yet). Blocking: call it on the file pool.
    public func write(_ text: String, to link: String, over base: String, afterCheck: (String?) throws -> Void = { _ in }) throws -> Outcome {
        // A file that is a link to one elsewhere (a venue kept in a checkout of its own) is
        // written where the link points, and stays a link.
        let path = URL(fileURLWithPath: link).resolvingSymlinksInPath().path
        return try Self.saving.withLock { _ in
            let now = try Self.current(path)
            if (now?.hash ?? "") != base {
                return .changedOnDisk(current: now?.text ?? "", hash: now?.hash ?? "")
            }
            try afterCheck(now?.text)
            let bytes = Data(text.utf8)
            // The file keeps its permissions (a venue kept in git may be group-writable).
            var info = stat()
            let mode = stat(path, &info) == 0 ? info.st_mode & 0o777 : 0o644
            try Self.writeAtomically(bytes, to: path, mode: mode)
            return .saved(hash: MissionFileReader.hash(bytes))
        }
    }

    /// `bytes` into `path` through a hidden temporary file in the same folder (the folder's
    /// listing skips names that start with a dot), synced before and after the rename.
    public static func writeAtomically(_ bytes: Data, to path: String, mode: mode_t) throws {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/." + url.lastPathComponent + "." + UUID().uuidString + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        _ = fchmod(descriptor, mode)
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(descriptor) }
            try bytes.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Glibc.write(descriptor, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
                    }
                    offset += written
                }
            }
            guard fsync(descriptor) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        }
        guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        renamed = true
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directory >= 0 {
            _ = fsync(directory)
            close(directory)
        }
    }
}

/// A file past `MissionFileReader.maxFileSize`, which the editor does not open.
public struct MissionFileTooLarge: Error, CustomStringConvertible {
    public var description: String { "The mission file is larger than \(MissionFileReader.maxFileSize / 1024 / 1024) MB." }
}
