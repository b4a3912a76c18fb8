/// The answer of `body`, or a failure once `limit` has passed without one: a test of something
/// that may hang (a database that went away) fails instead of hanging the whole run. `body`
/// runs in a task of its own, which is left behind if it never ends.
public func within<T: Sendable>(_ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let (answers, answer) = AsyncThrowingStream.makeStream(of: T.self)
    Task {
        do {
            answer.yield(try await body())
            answer.finish()
        } catch {
            answer.finish(throwing: error)
        }
    }
    let timer = Task {
        guard (try? await Task.sleep(for: limit)) != nil else { return }
        answer.finish(throwing: TimedOut(description: "\(what) did not answer within \(limit)"))
    }
    defer { timer.cancel() }
    for try await value in answers { return value }
    throw TimedOut(description: "\(what) gave no answer")
}

/// What `within` throws when its time is up.
public struct TimedOut: Error, CustomStringConvertible {
    public let description: String
}
