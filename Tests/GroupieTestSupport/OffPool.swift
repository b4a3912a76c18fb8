import Foundation

/// The answer of `body`, run on a thread of its own: for what blocks its thread for long (a
/// child process, a PostgreSQL cluster starting). Swift runs every task, and Swift Testing
/// every test, on a pool of as many threads as the machine has cores; a test that blocks one of
/// them there holds up every other test of the run, whose own time limits then run out.
public func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}
