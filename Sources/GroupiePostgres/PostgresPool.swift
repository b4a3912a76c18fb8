import _ConnectionPoolModule
import Foundation
import GroupieCore
import GroupieStorage
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// postgres-nio's pool, and the one task that runs it and the work beside it (the announcer's
/// sending, the listening for other instances' events, the reachability's tries): each in a
/// child task of its own (`spawn`), so that closing the pool ends them all and waits for them.
/// No task of the store outlives it. When PostgreSQL is found down, the pool's client is ended and another started:
/// ending it fails at once the requests that wait for one of its connections, which it would
/// otherwise keep waiting for its minute of attempts to connect.
///
/// `serve` runs the store as a service of its service group (`PostgresStore.run`): stopped
/// after the server and everything that writes, it closes the pool and waits for its end.
final class PostgresPool: Sendable {
    /// A client to run, with the signal that ends it.
    private struct Run: Sendable {
        let client: PostgresClient
        let end: AsyncStream<Void>.Continuation
        let ended: AsyncStream<Void>
    }

    private struct Current {
        var run: Run
        var closed = false
    }

    private typealias Job = @Sendable () async -> Void

    private let current: Mutex<Current>
    private let jobs: AsyncStream<Job>.Continuation
    private let runner = Mutex<Task<Void, Never>?>(nil)
    private let started: AsyncStream<Void>
    private let configuration: PostgresClient.Configuration
    private let logger: Logger

    /// Starts the pool; `beside` runs as long as it, as another child of its task, and is
    /// cancelled when it closes.
    init(configuration: PostgresClient.Configuration, logger: Logger, beside: @escaping @Sendable (PostgresPool) async -> Void) {
        self.configuration = configuration
        self.logger = logger
        let first = Self.makeRun(configuration, logger: logger)
        current = Mutex(Current(run: first))
        let (jobs, more) = AsyncStream.makeStream(of: Job.self)
        self.jobs = more
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        self.started = started
        more.yield { await Self.running(first, started: start) }
        runner.withLock { runner in
            runner = Task { [self] in
                await withDiscardingTaskGroup { group in
                    group.addTask { await beside(self) }
                    for await job in jobs {
                        group.addTask { await job() }
                    }
                    // Closed: what runs beside the pool ends with it.
                    group.cancelAll()
                }
            }
        }
    }

    /// Runs a client until it stops or is told to end.
    private static func running(_ run: Run, started: AsyncStream<Void>.Continuation) async {
        await withTaskGroup(of: Void.self) { one in
            one.addTask { await run.client.run() }
            one.addTask { for await _ in run.ended {} }
            started.finish()
            // Either the client stopped, or it was told to end: the other goes too.
            _ = await one.next()
            one.cancelAll()
        }
    }

    /// Runs `job` as a child of the pool's task, cancelled when the pool closes; false, without
    /// running it, once the pool is closed.
    @discardableResult
    func spawn(_ job: @escaping @Sendable () async -> Void) -> Bool {
        current.withLock { current in
            guard !current.closed else { return false }
            jobs.yield(job)
            return true
        }
    }

    private static func makeRun(_ configuration: PostgresClient.Configuration, logger: Logger) -> Run {
        let (ended, end) = AsyncStream.makeStream(of: Void.self)
        return Run(client: PostgresClient(configuration: configuration, backgroundLogger: logger), end: end, ended: ended)
    }

    var client: PostgresClient { current.withLock { $0.run.client } }

    /// Returns once the first client's `run` has begun: it takes no lease before.
    func hasStarted() async {
        for await _ in started {}
        await Task.yield()
    }

    /// Ends the pool's client and starts another; with `only`, only while that client is still
    /// the pool's (a pool found stuck that was replaced meanwhile is left as it is).
    func replace(only stuck: ObjectIdentifier? = nil) {
        let ended = current.withLock { current -> Run? in
            guard !current.closed else { return nil }
            if let stuck, ObjectIdentifier(current.run.client) != stuck { return nil }
            let ended = current.run
            let next = Self.makeRun(configuration, logger: logger)
            current.run = next
            jobs.yield { await Self.running(next, started: AsyncStream.makeStream(of: Void.self).continuation) }
            return ended
        }
        ended?.end.finish()
    }

    /// Ends the pool's connections, and what runs beside it, without waiting.
    func close() {
        let last = current.withLock { current -> Run? in
            guard !current.closed else { return nil }
            current.closed = true
            return current.run
        }
        last?.end.finish()
        jobs.finish()
    }

    /// Closes the pool and returns once every task it ran has ended.
    func shutdown() async {
        close()
        await runner.withLock { $0 }?.value
    }
}
