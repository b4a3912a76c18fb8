import Dispatch

/// Short blocking file work (reading a stored image, removing files) on a dispatch thread,
/// so that Swift's cooperative threads never wait on the disk. Image processing has its own
/// bounded `ImageWorkQueue`; reads must not queue behind it.
enum BlockingIO {
    static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
