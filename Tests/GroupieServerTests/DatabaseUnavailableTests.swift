import _ConnectionPoolModule
@testable import GroupiePostgres
@testable import GroupieServer
import GroupieStorage
import Hummingbird
import Logging
import GroupieTestSupport
import HummingbirdTesting
import Synchronization
import Testing

/// A request that meets a database it cannot reach answers 503 with `Retry-After`, not 500:
/// the same request may succeed in a moment.
@Suite("Database unavailable")
struct DatabaseUnavailableTests {
    @Test("A lost or refused PostgreSQL connection, or PostgreSQL known to be down, is a 503 database-unavailable with Retry-After; another failure stays a 500")
    func answers() async throws {
        // What PostgreSQL's store turns into the contract's one error: a connection it had
        // closed, the pool unable to connect for a while; not a request the pool cancelled.
        #expect(PostgresStore.unavailable(PostgresConnectionClosed()) != nil)
        #expect(PostgresStore.unavailable(ConnectionPoolError.connectionCreationCircuitBreakerTripped) != nil)
        #expect(PostgresStore.unavailable(ConnectionPoolError.requestCancelled) == nil)
        let router = Router(context: GroupieRequestContext.self)
        router.add(middleware: ProblemMiddleware(routes: KnownRoutes()))
        router.get("closed") { _, _ -> String in throw PostgresStore.unavailable(PostgresConnectionClosed())! }
        router.get("refused") { _, _ -> String in throw PostgresStore.unavailable(ConnectionPoolError.connectionCreationCircuitBreakerTripped)! }
        // What the store answers while it knows PostgreSQL to be down.
        router.get("down") { _, _ -> String in throw StoreUnavailable("Connection refused") }
        router.get("broken") { _, _ -> String in throw ConnectionPoolError.requestCancelled }
        try await Application(router: router).test(.router) { client in
            for path in ["/closed", "/refused", "/down"] {
                try await client.execute(uri: path, method: .get) { response in
                    #expect(response.status == .serviceUnavailable, "\(path)")
                    #expect(response.headers[.retryAfter] == "5")
                    #expect(String(buffer: response.body).contains(#""code":"database-unavailable""#))
                }
            }
            try await client.execute(uri: "/broken", method: .get) { response in
                #expect(response.status == .internalServerError)
                #expect(String(buffer: response.body).contains(#""code":"internal-error""#))
            }
        }
    }

    @Test("A PostgreSQL write that finds what it read changed at every try gives up as busy, a 503 database-busy with Retry-After")
    func busy() async throws {
        let store = try await PostgresStore.open(url: try await TestPostgres.freshDatabase(), logger: Logger(label: "groupie-test"))
        defer { store.close() }
        let tries = Mutex(0)
        await #expect(throws: StoreBusy.self) {
            try await store.write { _ -> Int in
                tries.withLock { $0 += 1 }
                throw PostgresStore.ReadAgain()
            }
        }
        #expect(tries.withLock { $0 } == PostgresStore.attempts)
        let router = Router(context: GroupieRequestContext.self)
        router.add(middleware: ProblemMiddleware(routes: KnownRoutes()))
        router.get("busy") { _, _ -> String in throw StoreBusy("8 tries ended in 40P01") }
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/busy", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "1")
                #expect(String(buffer: response.body).contains(#""code":"database-busy""#))
            }
        }
    }
}
