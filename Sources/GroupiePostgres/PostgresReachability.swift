import GroupieStorage
import Logging
import PostgresNIO
import Synchronization

/// What this instance knows of whether PostgreSQL answers, so that requests need not wait on a
/// pool that cannot connect.
///
/// While PostgreSQL is down, postgres-nio's pool keeps trying to connect for a minute before it
/// fails the requests that wait for a connection: each request would hang that long. Instead, a
/// statement that fails for want of its connection, a readiness check without an answer, or a
/// request that has waited more than a second for a connection while none has been served, has
/// a connection tried outside the pool. When two tries a moment apart get no answer and nothing
/// went through the pool meanwhile, PostgreSQL is down: the store ends its pool (`onDown`),
/// which fails the requests waiting for it, and requests are refused before they wait
/// (`StoreUnavailable`, which the server answers with 503 and Retry-After). A
/// connection is tried every half second; the first that succeeds lets requests through again,
/// on a new pool (`onUp`): the one started when PostgreSQL went down has been backing off its
/// own attempts meanwhile. A connection that one server process or a proxy ended, with the
/// server itself fine, or a server that refuses a connection of its own accord (too many
/// clients), changes nothing: the try beside the pool gets an answer.
///
/// Its tries and its watch run as child tasks of the pool's task (`spawn`): closing the store
/// cancels them and waits for their end.
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
        /// When a request last had its work done on a connection of the pool.
        var lastServed = ContinuousClock.now
        /// The pool's client that gave up connecting, while the try beside the pool runs: a try
        /// that succeeds then starts a new pool, as after an outage, if that client is still
        /// the pool's.
        var stuckPool: ObjectIdentifier?
        /// Whether the watch of waiting requests runs.
        var watching = false
        var closed = false
    }

    /// How long a request waits for a connection before one is tried beside the pool.
    static let patience = Duration.seconds(1)
    /// How long after the first try without an answer the second is made.
    static let confirmation = Duration.milliseconds(250)
    /// How often a connection is tried while PostgreSQL is down.
    static let retryInterval = Duration.milliseconds(500)

    private let inner = Mutex(Inner())
    private let url: PostgresURL
    private let logger: Logger
    private let onDown: @Sendable () -> Void
    private let onUp: @Sendable () -> Void
    private let onStuck: @Sendable (ObjectIdentifier) -> Void
    private let spawn: @Sendable (@escaping @Sendable () async -> Void) -> Bool

    /// `onDown` is called when PostgreSQL is found down, `onUp` when it answers again (the store
    /// ends its pool and starts another at both), `onStuck` with a pool's client that gave up
    /// connecting while PostgreSQL answers (the store replaces it if it is still the pool's);
    /// `spawn` runs work as a child of the pool's task.
    init(
        url: PostgresURL, logger: Logger, onDown: @escaping @Sendable () -> Void, onUp: @escaping @Sendable () -> Void,
        onStuck: @escaping @Sendable (ObjectIdentifier) -> Void,
        spawn: @escaping @Sendable (@escaping @Sendable () async -> Void) -> Bool
    ) {
        self.url = url
        self.logger = logger
        self.onDown = onDown
        self.onUp = onUp
        self.onStuck = onStuck
        self.spawn = spawn
    }

    /// Why requests are refused now, or nil while they go through.
    var downReason: String? {
        inner.withLock { inner in
            if case .down(let reason) = inner.state { return reason }
            return nil
        }
    }

    /// Whether a connection is being tried beside the pool now.
    var isChecking: Bool {
        inner.withLock { $0.state == .checking }
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

    /// The request has its connection.
    func leased(_ id: Int) {
        _ = inner.withLock { $0.waiting.removeValue(forKey: id) }
    }

    /// Notes work done on a connection of the pool: PostgreSQL answers.
    func served() {
        inner.withLock { $0.lastServed = .now }
    }

    /// Something suggests that PostgreSQL cannot be reached: a connection is tried beside the
    /// pool, unless one is tried already or PostgreSQL is known to be down. `stuckPool`: the
    /// client of the pool that gave up connecting (postgres-nio's circuit breaker), rather than
    /// one of its connections being lost. A pool that keeps connections open while idle
    /// (`pool_min`) goes on trying through an outage nobody noticed, backing off up to a minute
    /// between tries, and gives up after a minute: when the try beside it succeeds, a new pool
    /// is started in its place.
    func suspect(stuckPool: ObjectIdentifier? = nil) {
        let starts = inner.withLock { inner -> Bool in
            guard !inner.closed else { return false }
            switch inner.state {
            case .down:
                // A new pool is started anyway when PostgreSQL answers again.
                return false
            case .checking:
                inner.stuckPool = stuckPool ?? inner.stuckPool
                return false
            case .up:
                inner.stuckPool = stuckPool
                inner.state = .checking
                return true
            }
        }
        guard starts else { return }
        if !spawn({ [self] in await tryConnecting() }) {
            // The pool is closed: there is nothing left to check.
            inner.withLock { $0.state = .up }
        }
    }

    /// Stops trying and watching: the store is closed (closing the pool cancels the tries).
    func close() {
        inner.withLock { $0.closed = true }
    }

    /// Tries a connection until one succeeds. PostgreSQL is down when two tries a moment apart
    /// get no answer and no request was served by the pool meanwhile.
    private func tryConnecting() async {
        let started = ContinuousClock.now
        var failures = 0
        while !Task.isCancelled {
            guard let reason = await PostgresStore.silence(url, logger: logger) else {
                // The new pool first, while requests are still refused: none leases from
                // the pool that is ended.
                if downReason != nil { onUp() }
                // Up, and the stuck pool taken, at once: a pool found stuck later is another check's.
                let (wasDown, stuck) = inner.withLock { inner -> (Bool, ObjectIdentifier?) in
                    guard !inner.closed else { return (false, nil) }
                    defer { (inner.state, inner.stuckPool) = (.up, nil) }
                    if case .down = inner.state { return (true, nil) }
                    return (false, inner.stuckPool)
                }
                if let stuck {
                    logger.notice("PostgreSQL answers, but the pool gave up connecting; a new pool is started")
                    onStuck(stuck)
                }
                if wasDown { logger.notice("PostgreSQL answers again; requests go through") }
                return
            }
            failures += 1
            let goesDown = inner.withLock { inner -> Bool in
                guard !inner.closed, inner.state == .checking else { return false }
                if inner.lastServed > started {
                    // The pool served a request meanwhile: the server answers it.
                    (inner.state, inner.stuckPool) = (.up, nil)
                    return false
                }
                guard failures >= 2 else { return false }
                inner.state = .down(reason: reason)
                return true
            }
            if goesDown {
                logger.error("PostgreSQL cannot be reached; requests that need it are refused until it answers: \(reason)")
                onDown()
            }
            let goesOn = inner.withLock { inner -> Bool in
                guard !inner.closed else { return false }
                if case .up = inner.state { return false }
                return true
            }
            if !goesOn { return }
            try? await Task.sleep(for: failures < 2 ? Self.confirmation : Self.retryInterval)
        }
    }

    /// Watches the requests waiting for a connection, while any wait: one that has waited longer
    /// than `patience`, while the pool has served no one for as long, has a connection tried.
    /// (The pool says nothing of the connections it cannot make, until it gives up; a pool that
    /// is merely busy goes on serving.)
    private func watch() {
        let starts = inner.withLock { inner -> Bool in
            guard !inner.closed, !inner.watching else { return false }
            inner.watching = true
            return true
        }
        guard starts else { return }
        if !spawn({ [weak self] in await self?.watching() }) {
            inner.withLock { $0.watching = false }
        }
    }

    private func watching() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: Self.patience / 2)
            let (stuck, stops) = inner.withLock { inner -> (Bool, Bool) in
                let now = ContinuousClock.now
                let longest = inner.waiting.values.min().map { now - $0 }
                // Started again by the next request that waits.
                let stops = inner.closed || inner.waiting.isEmpty
                if stops { inner.watching = false }
                return ((longest ?? .zero) > Self.patience && now - inner.lastServed > Self.patience, stops)
            }
            if stuck { suspect() }
            if stops { return }
        }
        inner.withLock { $0.watching = false }
    }
}
