import Crypto
import Dispatch
import Foundation
import Hummingbird

/// Streams an upload's body to a temporary file, hashing it on the way; never holds more
/// than about a megabyte of it in memory, and stops as soon as it is over the limit.
enum UploadReceiver {
    static let flushSize = 1 << 20

    /// Returns the SHA-256 (hex) and the size of what was written to `path`.
    static func receive(_ body: RequestBody, to path: String, limit: Int) async throws -> (sha256: String, size: Int) {
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var hasher = SHA256()
        var size = 0
        var pending = Data()
        for try await buffer in body {
            size += buffer.readableBytes
            if size > limit { throw Problem.tooLarge(limit: limit) }
            buffer.withUnsafeReadableBytes { hasher.update(bufferPointer: $0) }
            pending.append(contentsOf: buffer.readableBytesView)
            if pending.count >= flushSize {
                try await write(pending, to: handle)
                pending.removeAll(keepingCapacity: true)
            }
        }
        if !pending.isEmpty { try await write(pending, to: handle) }
        return (hasher.finalize().map { String(format: "%02x", $0) }.joined(), size)
    }

    private static func write(_ data: Data, to handle: FileHandle) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try handle.write(contentsOf: data) })
            }
        }
    }
}

extension Problem {
    static func tooLarge(limit: Int) -> Problem {
        Problem(.contentTooLarge, code: "photo-too-large", detail: "A photo may be at most \(limit / 1_048_576) MiB.")
    }
}
