import _ConnectionPoolModule
import Foundation
import GroupieCore
import GroupieStorage
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// postgres-nio's pool and the task that runs it. When PostgreSQL is found down, the pool is
/// ended and another started: ending it fails at once the requests that wait for one of its
/// connections, which it would otherwise keep waiting for its minute of attempts to connect.
final class PostgresPool: Sendable {
    private struct Current {
        var client: PostgresClient
        var running: Task<Void, Never>
        var started: AsyncStream<Void>
        var closed = false
    }

    private let current: Mutex<Current>
    private let configuration: PostgresClient.Configuration
    private let logger: Logger

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        current = Mutex(Self.start(configuration, logger: logger))
    }

    private static func start(_ configuration: PostgresClient.Configuration, logger: Logger) -> Current {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let running = Task {
            start.finish()
            await client.run()
        }
        return Current(client: client, running: running, started: started)
    }

    var client: PostgresClient { current.withLock { $0.client } }

    /// Returns once the pool's `run` has begun: it takes no lease before.
    func hasStarted() async {
        for await _ in current.withLock({ $0.started }) {}
        await Task.yield()
    }

    /// Ends this pool and starts another.
    func replace() {
        let ended = current.withLock { current -> Task<Void, Never>? in
            guard !current.closed else { return nil }
            let ended = current.running
            current = Self.start(configuration, logger: logger)
            return ended
        }
        ended?.cancel()
    }

    func close() {
        current.withLock { current -> Task<Void, Never> in
            current.closed = true
            return current.running
        }.cancel()
    }
}
