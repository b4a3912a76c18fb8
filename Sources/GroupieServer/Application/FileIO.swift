import Foundation
import GroupieContent
import NIOPosix
import ServiceLifecycle

/// Short blocking file work (reading a stored image, writing an upload, removing files) on a
/// pool of NIO threads sized by the configuration, so that Swift's cooperative threads never
/// wait on the disk. Image processing has its own bounded `ImageWorkQueue`; file reads must
/// not queue behind it. As a service of the application, the pool stops after the services
/// listed after it, so work still running at shutdown finishes first.
struct FileIO: Service, BlockingWork {
    private let pool: NIOThreadPool

    init(threads: Int) {
        pool = NIOThreadPool(numberOfThreads: max(1, threads))
        pool.start()
    }

    /// Runs `work` even when the calling task is cancelled: a file removal that follows a
    /// committed deletion must not be skipped. Throws only when the pool has stopped.
    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            pool.submit { state in
                guard case .active = state else { return continuation.resume(throwing: CancellationError()) }
                continuation.resume(with: Result { try work() })
            }
        }
    }

    func run() async throws {
        try? await gracefulShutdown()
        try await pool.shutdownGracefully()
    }

    /// For a pool that never ran as a service.
    func shutdown() async throws {
        try await pool.shutdownGracefully()
    }
}

extension FileIO {
    /// The bytes `draw` writes to a temporary file named for `purpose` with `fileExtension` (the
    /// posters', cards', stickers' and recap's drawing, which writes files), read back on the
    /// pool; the file is removed.
    func drawn(_ purpose: String, fileExtension: String, _ draw: @escaping @Sendable (String) throws -> Void) async throws -> Data {
        try await run {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-\(purpose)-\(UUID().uuidString).\(fileExtension)").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            try draw(path)
            return try Data(contentsOf: URL(fileURLWithPath: path))
        }
    }
}
