import Foundation

/// The data folder's disk (or the user's quota on it) is full: a write that needs room failed,
/// and the same write may succeed once room is made. What was half-written is gone again.
public struct StorageFull: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String = "the data folder's disk is full") { self.description = description }

    /// Whether `error` says the disk or the quota is full, however it came: a POSIX error,
    /// Foundation's out-of-space error (with the POSIX one beneath it or not), or a message of
    /// a C library (libvips) that carries the system's words for it.
    public static func isOutOfSpace(_ error: any Error) -> Bool {
        if error is StorageFull { return true }
        if let error = error as? POSIXError { return [.ENOSPC, .EDQUOT, .EFBIG].contains(error.code) }
        if let error = error as? CocoaError, error.code == .fileWriteOutOfSpace { return true }
        // Read before bridging: an NSError made of a Swift error keeps no message of its own.
        if mentionsFullDisk(String(describing: error)) { return true }
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain, [ENOSPC, EDQUOT, EFBIG].contains(Int32(error.code)) { return true }
        if error.domain == NSCocoaErrorDomain, error.code == CocoaError.fileWriteOutOfSpace.rawValue { return true }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? any Error, isOutOfSpace(underlying) { return true }
        return mentionsFullDisk(error.localizedDescription)
    }

    /// The system's own words for ENOSPC, EDQUOT and EFBIG, as C libraries pass them on.
    public static func mentionsFullDisk(_ message: String) -> Bool {
        [ENOSPC, EDQUOT, EFBIG].contains { message.contains(String(cString: strerror($0))) }
    }

    /// The bytes free for this user on the file system that holds `path`, or nil when it
    /// cannot be asked.
    public static func availableBytes(at path: String) -> Int64? {
        var status = statvfs()
        guard statvfs(path, &status) == 0 else { return nil }
        return Int64(status.f_bavail) * Int64(status.f_frsize)
    }
}
