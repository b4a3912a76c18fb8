import Foundation
import HTTPTypes

/// `flock` on a file, held until released (or its process ends).
final class FileLock: Sendable {
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// The lock, or nil when another holds it: never waits.
    static func take(_ path: String) throws -> FileLock? {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            // The upload's folder went (completed, expired) since its state was read.
            if errno == ENOENT { throw Problem.offsetMismatch(0) }
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        return FileLock(descriptor: descriptor)
    }

    /// Unlocks before closing: a process started meanwhile holds a copy of the descriptor until
    /// it runs its program, and closing alone would leave the lock held through that copy.
    func release() {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}

extension Problem {
    static func offsetMismatch(_ offset: Int) -> Problem {
        Problem(
            .conflict, code: "upload-offset-mismatch",
            detail: "The server has the upload's bytes up to \(offset); send the part that starts there.",
            headers: [.uploadOffset: String(offset)], extensions: ["offset": String(offset)]
        )
    }

    static func totalChanged(_ total: Int) -> Problem {
        Problem(.conflict, code: "upload-total-changed", detail: "This upload was started for a photo of \(total) bytes; a new photo needs a new key.")
    }

    static let uploadBusy = Problem(
        .conflict, code: "upload-busy", detail: "Another request is adding to this upload; ask where it stands and go on from there.",
        headers: [.retryAfter: "1"]
    )

    static let tooManyUploads = Problem(
        .tooManyRequests, code: "too-many-uploads",
        detail: "Too many photos are half sent from here right now; the next one goes when one of them is done.", headers: [.retryAfter: "30"]
    )

    static let uploadSpaceFull = Problem(
        HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), code: "uploads-full",
        detail: "Too many photos are half sent right now; try again in a while.", headers: [.retryAfter: "30"]
    )
}
