import Foundation
import GroupieCore
@testable import GroupiePostgres
@testable import GroupieStorage
import GroupieTestSupport
import Logging
import ServiceLifecycle
import Testing

@Suite("PostgreSQL's pool under a service group")
struct PostgresLifecycleTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("Run as a service, the store serves and announces until the group shuts down, then its pool ends and the group's run returns")
    func poolAsService() async throws {
        let (opened, other) = try await Backend.postgresql.openTwo()
        let store = try #require(opened as? PostgresStore), listener = try #require(other as? PostgresStore)
        let heard = try #require(listener.eventAnnouncements())
        // A stream of the store's own: its listening is a child of the pool's task.
        let own = try #require(store.eventAnnouncements())
        let ada = try await StoreContractTests().player("Ada", in: store)
        let group = ServiceGroup(configuration: .init(services: [.init(service: store)], gracefulShutdownSignals: [], logger: Backend.logger))
        try await within(.seconds(30), "the service group") {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                // Writes go on while it runs, and their events are announced to the other instance.
                let made = try await store.createGroup(venueId: "v", name: "G", creatorId: ada.id, joinableFor: 3600, now: now)
                // Written until the other instance, which listens from its first look, hears one.
                let writer = Task {
                    while !Task.isCancelled {
                        _ = try? await store.appendEvents(groupId: made.group.id, [.memberRenamed(playerId: ada.id, name: "Ada")], now: now)
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                }
                var iterator = heard.makeAsyncIterator()
                var announced: [String] = []
                while !announced.contains(made.group.id), let next = await iterator.next() {
                    if case .committed(let groupId, _) = next { announced.append(groupId) }
                }
                writer.cancel()
                await writer.value
                #expect(announced.contains(made.group.id))
                await group.triggerGracefulShutdown()
                try await tasks.next()
            }
        }
        // The pool has ended: a write is refused at once rather than waiting for a connection.
        let outcome = try await within(.seconds(10), "a write after the shutdown") {
            do {
                _ = try await store.createGroup(venueId: "v", name: "H", creatorId: ada.id, joinableFor: 3600, now: now)
                return "written"
            } catch {
                return "refused"
            }
        }
        #expect(outcome == "refused")
        // The listening ended with the pool: the stream finishes, and one asked for now
        // finishes at once.
        try await within(.seconds(10), "the end of the store's announcements") {
            for await _ in own {}
            for await _ in try #require(store.eventAnnouncements()) {}
        }
        // The other instance's too, when it shuts down; nothing of its store runs on.
        let second = try #require(listener.eventAnnouncements())
        try await within(.seconds(10), "the other instance's shutdown") {
            await listener.shutdown()
            for await _ in second {}
        }
    }

    @Test("The pool keeps pool_min connections open while nothing is asked of it, and closes them when the store closes")
    func readyConnections() async throws {
        let url = try await TestPostgres.freshDatabase().replacingOccurrences(of: "pool_min=0", with: "pool_min=3")
        let database = String(try #require(URLComponents(string: url)?.path.dropFirst()))
        let store = try await PostgresStore.open(url: url, logger: Backend.logger)
        // Read back from PostgreSQL, a client apart from the pool: its backends for the database.
        let open: @Sendable () async throws -> Int = {
            Int(try await TestPostgres.psql(url, "SELECT count(*) FROM pg_stat_activity WHERE datname = '\(database)' AND backend_type = 'client backend' AND pid <> pg_backend_pid()")) ?? -1
        }
        let ready = try await within(.seconds(20), "three connections open") {
            var count = try await open()
            while count < 3 {
                try await Task.sleep(for: .milliseconds(100))
                count = try await open()
            }
            return count
        }
        // No more: nothing was asked, and the announcer and the listening take none until used.
        #expect(ready == 3)
        await store.shutdown()
        try await within(.seconds(20), "the connections closed") {
            while try await open() > 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
    }
}
