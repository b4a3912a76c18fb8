import Logging
import PostgresNIO
import Synchronization

/// What this instance knows of whether PostgreSQL answers, so that requests need not wait on a
/// pool that cannot connect.
///
/// While PostgreSQL is down, postgres-nio's pool keeps trying to connect for a minute before it
/// fails the requests that wait for a connection: each request would hang that long. Instead, a
/// statement that fails for want of its connection, a readiness check without an answer, or a
/// request that has waited more than a second for a connection, has one connection tried outside
/// the pool. When that fails too, PostgreSQL is down: requests are refused at once
/// (`PostgresStoreError.unreachable`, which the server answers with 503 and Retry-After) and a
/// connection is tried every half second; the first that succeeds lets requests through again.
/// A connection that one server process or a proxy ended, with the server itself fine, changes
/// nothing: the connection tried beside it succeeds.
final class PostgresReachability: Sendable {
    private enum State: Equatable {
        case up
        /// A connection is being tried outside the pool; requests go on as before meanwhile.
        case checking
        case down(reason: String)
    }

    private struct Inner {
        var state = State.up
        /// When each request now waiting for a connection began to wait, by a number of its own.
        var waiting: [Int: ContinuousClock.Instant] = [:]
        var nextWaiter = 0
        var trying: Task<Void, Never>?
        var closed = false
    }

    /// How long a request waits for a connection before one is tried beside the pool.
    static let patience = Duration.seconds(1)
    /// How often a connection is tried while PostgreSQL is down.
    static let retryInterval = Duration.milliseconds(500)

    private let inner = Mutex(Inner())
    private let url: PostgresURL
    private let logger: Logger
    private let onDown: @Sendable () -> Void
    private let watching = Mutex<Task<Void, Never>?>(nil)

    /// `onDown` is called when PostgreSQL is found down (the store then ends its pool).
    init(url: PostgresURL, logger: Logger, onDown: @escaping @Sendable () -> Void) {
        self.url = url
        self.logger = logger
        self.onDown = onDown
    }

    /// Why requests are refused now, or nil while they go through.
    var downReason: String? {
        inner.withLock { inner in
            if case .down(let reason) = inner.state { return reason }
            return nil
        }
    }

    /// Notes a request that starts to wait for a connection; `leased` when it has one.
    func waits() -> Int {
        let id = inner.withLock { inner in
            inner.nextWaiter += 1
            inner.waiting[inner.nextWaiter] = .now
            return inner.nextWaiter
        }
        watch()
        return id
    }

    func leased(_ id: Int) {
        _ = inner.withLock { $0.waiting.removeValue(forKey: id) }
    }

    /// Something suggests that PostgreSQL cannot be reached: a connection is tried beside the
    /// pool, unless one is tried already or PostgreSQL is known to be down.
    func suspect() {
        let starts = inner.withLock { inner -> Bool in
            guard !inner.closed, inner.state == .up else { return false }
            inner.state = .checking
            return true
        }
        if starts { startTrying() }
    }

    /// Stops trying and watching: the store is closed.
    func close() {
        let tasks = inner.withLock { inner -> [Task<Void, Never>] in
            inner.closed = true
            return [inner.trying].compactMap { $0 }
        }
        for task in tasks { task.cancel() }
        watching.withLock { $0?.cancel() }
    }

    /// Tries a connection until one succeeds: the first failure marks PostgreSQL down.
    private func startTrying() {
        let task = Task { [url, logger, onDown] in
            while !Task.isCancelled {
                guard let reason = await PostgresStore.silence(url, logger: logger) else {
                    let wasDown = inner.withLock { inner -> Bool in
                        defer { inner.state = .up; inner.trying = nil }
                        if case .down = inner.state { return true }
                        return false
                    }
                    if wasDown { logger.notice("PostgreSQL answers again; requests go through") }
                    return
                }
                let wasUp = inner.withLock { inner -> Bool in
                    defer { inner.state = .down(reason: reason) }
                    return inner.state == .checking
                }
                if wasUp {
                    logger.error("PostgreSQL cannot be reached; requests that need it are refused until it answers: \(reason)")
                    onDown()
                }
                try? await Task.sleep(for: Self.retryInterval)
            }
        }
        inner.withLock { $0.trying = task }
    }

    /// Watches the requests waiting for a connection, while any wait: one that has waited longer
    /// than `patience` has a connection tried. (The pool says nothing of the connections it cannot
    /// make, until it gives up.)
    private func watch() {
        watching.withLock { watching in
            guard watching == nil else { return }
            watching = Task { [weak self] in
                while !Task.isCancelled {
                    try? await Task.sleep(for: Self.patience / 2)
                    guard let self else { return }
                    let (longest, idle) = inner.withLock { inner in
                        (inner.waiting.values.min().map { ContinuousClock.now - $0 }, inner.waiting.isEmpty)
                    }
                    if let longest, longest > Self.patience { suspect() }
                    if idle {
                        // Started again by the next request that waits.
                        let stops = self.watching.withLock { watching -> Bool in
                            guard inner.withLock({ $0.waiting.isEmpty }) else { return false }
                            watching = nil
                            return true
                        }
                        if stops { return }
                    }
                }
            }
        }
    }
}
