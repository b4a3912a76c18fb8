import Foundation
import GroupieImaging
import Hummingbird
import NIOCore
import Synchronization

/// A file sent as the socket drains: read a chunk at a time on the file threads, each written
/// when the response writer takes it (it waits while the connection's buffer is full), so that
/// an answer whose client does not read holds what was read ahead before the writer stopped
/// taking chunks (measured: about a megabyte), not the file.
/// The file stays open from the first read to the last: one replaced or removed meanwhile (a
/// collage made again) is still read whole.
final class StreamedFile: Sendable {
    static let chunkSize = 64 * 1024

    private let descriptor: Int32
    let size: Int
    private let fileIO: FileIO

    private init(descriptor: Int32, size: Int, fileIO: FileIO) {
        self.descriptor = descriptor
        self.size = size
        self.fileIO = fileIO
    }

    deinit { close(descriptor) }

    static func open(_ path: String, fileIO: FileIO) async throws -> StreamedFile {
        try await fileIO.run {
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
                Glibc.close(descriptor)
                throw POSIXError(.EINVAL)
            }
            return StreamedFile(descriptor: descriptor, size: Int(info.st_size), fileIO: fileIO)
        }
    }

    /// Up to `chunkSize` bytes from `offset`; fewer only at the end.
    func chunk(at offset: Int) async throws -> ByteBuffer {
        let (descriptor, count) = (self.descriptor, min(Self.chunkSize, size - offset))
        return try await fileIO.run {
            var buffer = ByteBufferAllocator().buffer(capacity: count)
            let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { bytes in
                var done = 0
                while done < count {
                    let got = pread(descriptor, bytes.baseAddress! + done, count - done, off_t(offset + done))
                    if got < 0, errno == EINTR { continue }
                    guard got > 0 else { throw POSIXError(got == 0 ? .EIO : POSIXErrorCode(rawValue: errno) ?? .EIO) }
                    done += got
                }
                return done
            }
            precondition(read == count)
            return buffer
        }
    }

    /// The CRC-32 of the whole file, which a ZIP entry's header needs before its data.
    func crc32() async throws -> UInt32 {
        var crc: UInt32 = 0
        var offset = 0
        while offset < size {
            let chunk = try await chunk(at: offset)
            crc = chunk.withUnsafeReadableBytes { CRC32.update(crc, with: $0) }
            offset += chunk.readableBytes
        }
        return crc
    }

    /// Writes the whole file, a chunk at a time, each when the writer takes it.
    func write(to writer: inout some ResponseBodyWriter) async throws {
        var offset = 0
        while offset < size {
            let chunk = try await chunk(at: offset)
            offset += chunk.readableBytes
            try await writer.write(chunk)
        }
    }
}

/// How many files are being streamed at once, in all: each holds a chunk and what the socket
/// has not taken, so that many clients that do not read cannot together hold memory without
/// bound. Beyond the bound a download is answered at once that the server is busy.
final class StreamedDownloads: Sendable {
    let limit: Int
    private let count = Mutex(0)

    init(limit: Int) {
        self.limit = limit
    }

    /// A place for one more streamed answer, or the 503 that says there is none; give it back
    /// with `release` when the answer ends.
    func take() throws -> Place {
        let taken = count.withLock { count in
            guard count < limit else { return false }
            count += 1
            return true
        }
        guard taken else {
            throw Problem(
                .serviceUnavailable, code: "downloads-busy",
                detail: "The server is sending as many files as it takes at once; try again in a few seconds.", headers: [.retryAfter: "5"]
            )
        }
        return Place(downloads: self)
    }

    var inFlight: Int { count.withLock { $0 } }

    /// One streamed answer's place, given back when it goes (written, failed or never written).
    final class Place: Sendable {
        private let downloads: StreamedDownloads
        fileprivate init(downloads: StreamedDownloads) { self.downloads = downloads }
        deinit { downloads.count.withLock { $0 -= 1 } }
    }
}
