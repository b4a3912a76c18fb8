import Foundation

/// One running instance's folder for files being written, `blobs/tmp/<instance>/`, locked with
/// `flock` on its `.lock` file for as long as the instance runs.
///
/// Several instances may share one data folder. An instance that starts removes only the
/// folders whose lock it can take, those of instances that no longer run, so that a restart
/// never takes a file from under an upload in progress on another instance. A crashed
/// instance's lock ends with its process, so what it left goes at the next start of any
/// instance. The file system must honour `flock` across the machines that share it, as it must
/// give `rename` and `fsync` their meaning.
public final class TemporaryFolder: Sendable {
    /// The instance's name, unique to this start of it.
    public let instance: String
    /// Where every instance's folder is: `blobs/tmp`.
    public let root: String
    public let path: String
    private let lock: Int32

    /// Loose files that versions before per-instance folders wrote straight into `blobs/tmp/`
    /// are removed once they are this old, so that such an instance's uploads in progress
    /// during a rolling upgrade are left alone; so is a folder still being set up (`.<instance>`).
    static let looseFileAge: TimeInterval = 3600

    init(root: String) throws {
        instance = UUID().uuidString.lowercased()
        self.root = root
        path = root + "/" + instance
        // Made and locked under a name the sweep leaves alone, then renamed into place: a folder
        // that carries an instance's name always holds its lock, so no sweep can take it early.
        let staging = root + "/." + instance
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let descriptor = open(staging + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: staging + "/.lock"]) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, rename(staging, path) == 0 else {
            close(descriptor)
            try? FileManager.default.removeItem(atPath: staging)
            throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: path])
        }
        lock = descriptor
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
        close(lock)
    }

    /// Whether the instance named `instance` runs, here or on another machine sharing `root`.
    public static func isRunning(_ instance: String, root: String) -> Bool {
        let descriptor = open(root + "/" + instance + "/.lock", O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        // Closing the descriptor gives back a lock taken here; a lock held elsewhere, even by
        // another folder of this process, makes `flock` fail.
        defer { close(descriptor) }
        return flock(descriptor, LOCK_EX | LOCK_NB) != 0
    }

    /// Removes the folders of instances that no longer run, and loose files and folders being
    /// set up once older than `looseFileAge`; the folders of running instances, this one's
    /// among them, stay.
    func removeAbandoned(now: Date = Date()) {
        let fileManager = FileManager.default
        for name in (try? fileManager.contentsOfDirectory(atPath: root)) ?? [] where name != instance {
            let item = root + "/" + name
            var isFolder: ObjCBool = false
            guard fileManager.fileExists(atPath: item, isDirectory: &isFolder) else { continue }
            if isFolder.boolValue, !name.hasPrefix(".") {
                if !Self.isRunning(name, root: root) { try? fileManager.removeItem(atPath: item) }
            } else if let modified = (try? fileManager.attributesOfItem(atPath: item))?[.modificationDate] as? Date,
                now.timeIntervalSince(modified) >= Self.looseFileAge
            {
                try? fileManager.removeItem(atPath: item)
            }
        }
    }
}
