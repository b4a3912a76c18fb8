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

/// Waits until `condition` holds, asking again every `interval`; fails once `limit` has passed
/// without it. The limit is a bound on a hang, not a measure: it is generous, since a loaded
/// machine may be slow, and a test never asserts on how long the wait took.
public func eventually(
    _ limit: Duration = .seconds(120), _ what: String, every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    let start = ContinuousClock.now
    while try await !condition() {
        guard ContinuousClock.now - start < limit else {
            throw TimedOut(description: "\(what) did not happen within \(limit)")
        }
        try await Task.sleep(for: interval)
    }
}

/// `eventually` with its usual limit.
public func eventually(_ what: String, every interval: Duration = .milliseconds(10), _ condition: () async throws -> Bool) async throws {
    try await eventually(.seconds(120), what, every: interval, condition)
}
