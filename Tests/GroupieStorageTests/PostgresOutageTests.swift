import Foundation
import GroupieCore
@testable import GroupiePostgres
@testable import GroupieStorage
import GroupieTestSupport
import PostgresNIO
import Synchronization
import Testing

/// The store while its PostgreSQL server goes away and comes back, on a cluster of each test's
/// own: the one every other test shares keeps running.
@Suite("PostgreSQL outages")
struct PostgresOutageTests {
    /// A store on a new database of a cluster that only this test stops and starts.
    static func storeOnClusterOfItsOwn() async throws -> (TestPostgres.Cluster, PostgresStore) {
        let cluster = try await TestPostgres.Cluster()
        do {
            return (cluster, try await PostgresStore.open(url: try await cluster.freshDatabase(), logger: Backend.logger))
        } catch {
            cluster.remove()
            throw error
        }
    }

    @Test("A statement on a connection PostgreSQL has closed fails at once instead of waiting for ever")
    func statementOnClosedConnection() async throws {
        let (cluster, store) = try await Self.storeOnClusterOfItsOwn()
        defer { cluster.remove() }
        let outcome = try await within(.seconds(30), "a statement after the server stopped") {
            try await store.once { connection -> String in
                try await connection.run("SELECT 1", logger: Backend.logger)
                try await cluster.stop()
                let start = ContinuousClock.now
                while !connection.isClosed, ContinuousClock.now - start < .seconds(10) {
                    try await Task.sleep(for: .milliseconds(20))
                }
                guard connection.isClosed else { return "the connection stayed open" }
                do {
                    try await connection.run("SELECT 1", logger: Backend.logger)
                    return "answered"
                } catch let error as PostgresConnectionClosed {
                    return PostgresStore.unavailable(error) != nil ? "refused" : "refused, but not as unreachable"
                }
            }
        }
        #expect(outcome == "refused")
        store.close()
    }

    @Test("A job holding its lock while PostgreSQL restarts ends with an error, and the next job runs")
    func lockHolderAcrossRestart() async throws {
        let (cluster, store) = try await Self.storeOnClusterOfItsOwn()
        defer { cluster.remove() }
        let first = try await within(.seconds(60), "a job across a restart") {
            do {
                _ = try await store.exclusively("sweep") {
                    try await cluster.stop()
                    try await cluster.restart()
                    return true
                }
                return "finished"
            } catch {
                return error is StoreUnavailable ? "failed" : "failed with \(String(reflecting: error))"
            }
        }
        // The lock's connection was ended with the server: unlocking there cannot succeed, and
        // must not wait for ever with the job's slot.
        #expect(first == "failed")
        let next = try await within(.seconds(30), "the next job") { () -> Int? in
            // The pool opens new connections as they are asked for; the first may still find
            // the server starting.
            for _ in 0..<50 {
                if let value = try? await store.exclusively("sweep", { 2 }) { return value }
                try await Task.sleep(for: .milliseconds(100))
            }
            return nil
        }
        #expect(next == 2)
        // Every slot is free again: as many jobs at once as there are slots all run.
        let all = try await within(.seconds(30), "jobs in every slot") {
            try await withThrowingTaskGroup(of: Int?.self) { jobs in
                for index in 0..<4 {
                    jobs.addTask { try await store.exclusively("job \(index)") { index } }
                }
                return try await jobs.reduce(into: []) { $0.append($1) }.compactMap { $0 }.sorted()
            }
        }
        #expect(all == [0, 1, 2, 3])
        store.close()
    }

    @Test("While PostgreSQL is down, requests are refused within seconds, not after the pool's minute of attempts, and go through again once it is back")
    func refusedWhileDown() async throws {
        let (cluster, store) = try await Self.storeOnClusterOfItsOwn()
        defer { cluster.remove() }
        defer { store.close() }
        let ada = try await store.createPlayer(name: "Ada", language: nil, tokenHash: Data("ada".utf8), now: Date())
        let pool = ObjectIdentifier(store.client)
        try await cluster.stop()
        // The first read meets the connection the server ended, or waits for a new one that the
        // pool cannot make; the next ones are refused before they wait.
        for attempt in 0..<3 {
            let started = ContinuousClock.now
            let outcome = try await within(.seconds(50), "read \(attempt) while PostgreSQL is down") { () -> String in
                do {
                    _ = try await store.player(id: ada.id)
                    return "answered"
                } catch {
                    return error is StoreUnavailable ? "refused" : "failed with \(String(reflecting: error))"
                }
            }
            let took = ContinuousClock.now - started
            #expect(outcome == "refused")
            // The pool alone would keep each read a minute. Alone, the first takes about a second
            // and the next ones a millisecond; the bounds leave room for the busy suite.
            #expect(took < (attempt == 0 ? .seconds(20) : .seconds(5)), "read \(attempt) took \(took)")
        }
        #expect(await store.isReachable() == false)
        let poolWhileDown = ObjectIdentifier(store.client)
        #expect(poolWhileDown != pool, "the pool was ended, failing the requests that waited for it")
        try await cluster.restart()
        let back = try await within(.seconds(50), "a read once PostgreSQL is back") { () -> Player? in
            for _ in 0..<200 {
                if let player = try? await store.player(id: ada.id) { return player }
                try await Task.sleep(for: .milliseconds(100))
            }
            return nil
        }
        #expect(back?.id == ada.id)
        #expect(await store.isReachable())
        #expect(ObjectIdentifier(store.client) != poolWhileDown, "a new pool once it is back: the old one was backing off")
    }

    @Test("A pool that gave up connecting is replaced once a connection of the instance's own succeeds, if it is still the pool; one that lost a connection is kept")
    func poolThatGaveUp() async throws {
        let url = try await TestPostgres.freshDatabase()
        let stuck = Mutex<[ObjectIdentifier]>([]), replaced = Mutex(0)
        let reachability = PostgresReachability(
            url: try PostgresURL(url), logger: Backend.logger, onDown: {}, onUp: { replaced.withLock { $0 += 1 } },
            onStuck: { pool in stuck.withLock { $0.append(pool) } },
            spawn: { work in
                Task { await work() }
                return true
            }
        )
        defer { reachability.close() }
        let settled: @Sendable () async throws -> Void = {
            try await within(.seconds(30), "the try beside the pool") { while reachability.isChecking { try await Task.sleep(for: .milliseconds(20)) } }
        }
        // A connection lost (a statement's, or a proxy's timeout): PostgreSQL answers, the pool stays.
        reachability.suspect()
        try await settled()
        // The pool gave up after an outage nobody noticed: its next try could be a minute away.
        let store = try await PostgresStore.open(url: url, logger: Backend.logger)
        defer { store.close() }
        let gaveUp = ObjectIdentifier(store.client)
        reachability.suspect(stuckPool: gaveUp)
        try await settled()
        // Told once; a later check, for a lost connection, tells nothing.
        reachability.suspect()
        try await settled()
        #expect(stuck.withLock { $0 } == [gaveUp])
        #expect(replaced.withLock { $0 } == 0)
        #expect(reachability.downReason == nil)

        // The store replaces the pool told of only while it is still the pool's.
        store.pool.replace(only: ObjectIdentifier(reachability))
        #expect(ObjectIdentifier(store.client) == gaveUp, "another client: nothing replaced")
        store.pool.replace(only: gaveUp)
        #expect(ObjectIdentifier(store.client) != gaveUp)
        #expect(try await store.player(id: "nobody") == nil, "the new pool serves")
    }

    @Test("Why no connection was made names each address as an operator writes it, with the system's words")
    func connectionReason() throws {
        #expect(PostgresStore.address(try SocketAddress(ipAddress: "127.0.0.1", port: 5432), port: 5432) == "127.0.0.1:5432")
        #expect(PostgresStore.address(try SocketAddress(ipAddress: "::1", port: 5433), port: 5432) == "[::1]:5433")
        #expect(PostgresStore.address(try SocketAddress(unixDomainSocketPath: "/run/postgresql/.s.PGSQL.5432"), port: 5432) == "/run/postgresql/.s.PGSQL.5432")
        #expect(PostgresStore.reason(IOError(errnoCode: ECONNREFUSED, reason: "connect")) == "Connection refused")
    }
}
