import Crypto
import Foundation
import GroupieCore
import Hummingbird

/// Streams an upload's photo to a temporary file, hashing it on the way; never holds more
/// than about a megabyte of it in memory, and stops as soon as the body is over the limit.
/// The body is the image itself, or a `multipart/form-data` form (what HTML forms send)
/// whose first file field is the image.
enum UploadReceiver {
    static let flushSize = 1 << 20

    /// Returns the SHA-256 (hex) and the size of what was written to `path`.
    static func receive(_ body: RequestBody, contentType: String?, to path: String, limit: Int, fileIO: FileIO) async throws -> (sha256: String, size: Int) {
        let handle = try await fileIO.run {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }
        defer { try? handle.close() }
        let form = try contentType.flatMap(FormFileExtractor.init(contentType:))
        var hasher = SHA256()
        var received = 0, size = 0
        var pending = Data()
        var iterator = body.makeAsyncIterator()
        while let buffer = try await next(of: &iterator) {
            received += buffer.readableBytes
            if received > limit { throw Problem.tooLarge(limit: limit) }
            if let form {
                try form.feed(buffer)
                pending.append(form.takeFileBytes())
            } else {
                pending.append(contentsOf: buffer.readableBytesView)
            }
            if pending.count >= flushSize {
                hasher.update(data: pending)
                size += pending.count
                let chunk = pending
                try await fileIO.run { try handle.write(contentsOf: chunk) }
                pending.removeAll(keepingCapacity: true)
            }
        }
        if let form {
            try form.finish()
            guard form.sawFile else {
                throw Problem(.unprocessableContent, code: "missing-file", detail: "The form has no file field with the photo.")
            }
        }
        if !pending.isEmpty {
            hasher.update(data: pending)
            size += pending.count
            let chunk = pending
            try await fileIO.run { try handle.write(contentsOf: chunk) }
        }
        return (Hex.string(hasher.finalize()), size)
    }
}

extension UploadReceiver {
    /// The body's next part. The body fails only when its connection does (the phone went
    /// away, or out of the Wi-Fi's reach, mid-upload): the client's doing, answered (if anyone
    /// still listens) and counted as a 400 `upload-interrupted`, not as the server's failure.
    static func next(of iterator: inout RequestBody.AsyncIterator) async throws -> ByteBuffer? {
        do {
            return try await iterator.next()
        } catch let problem as Problem {
            throw problem
        } catch {
            throw Problem.badRequest("upload-interrupted", "The upload stopped before the whole photo arrived; send it again.")
        }
    }
}

extension Problem {
    static func tooLarge(limit: Int) -> Problem {
        Problem(.contentTooLarge, code: "photo-too-large", detail: "A photo may be at most \(limit / 1_048_576) MiB.")
    }
}

extension UploadReceiver {
    /// Streams one part of a resumable upload to `path`: exactly `length` bytes, or 400 (a
    /// part that stopped early is `upload-interrupted`, as a whole upload's).
    static func receivePart(_ body: RequestBody, to path: String, length: Int, fileIO: FileIO) async throws {
        let handle = try await fileIO.run {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            }
            return try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        }
        defer { try? handle.close() }
        var received = 0
        var pending = Data()
        var iterator = body.makeAsyncIterator()
        while let buffer = try await next(of: &iterator) {
            received += buffer.readableBytes
            if received > length { throw Problem.partLength }
            pending.append(contentsOf: buffer.readableBytesView)
            if pending.count >= flushSize {
                let chunk = pending
                try await fileIO.run { try handle.write(contentsOf: chunk) }
                pending.removeAll(keepingCapacity: true)
            }
        }
        guard received == length else { throw Problem.partLength }
        let chunk = pending
        try await fileIO.run { try handle.write(contentsOf: chunk) }
    }
}

extension Problem {
    static let partLength = Problem.badRequest("range-length-mismatch", "The part's body must hold exactly the bytes its Content-Range names.")
}
