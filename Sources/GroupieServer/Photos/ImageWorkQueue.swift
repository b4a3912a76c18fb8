import Dispatch
import Synchronization

/// Image work (libvips) on threads of its own, at most `width` jobs at once; further uploads
/// wait their turn instead of decoding side by side until memory runs out. Swift's
/// cooperative threads never block on it.
final class ImageWorkQueue: Sendable {
    private struct State {
        var running = 0
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let width: Int
    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "groupie.images", attributes: .concurrent)

    init(width: Int) {
        self.width = max(1, width)
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    private func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let runNow = state.withLock { state in
                if state.running < width {
                    state.running += 1
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if runNow { continuation.resume() }
        }
    }

    private func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiting.isEmpty {
                state.running -= 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
