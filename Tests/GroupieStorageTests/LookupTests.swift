import Foundation
@testable import GroupieSQLite
@testable import GroupieStorage
import Testing

/// SQLite lookups read on the caller's thread through connections of their own.
@Suite("Lookups on SQLite")
struct LookupTests {
    @Test("A lookup never waits for a connection: with every lookup connection taken, many at once still answer, and see the latest commit")
    func lookupsNeverWait() async throws {
        let database = try SQLiteStore.open(atPath: HardeningStorageTests.path())
        let hash = Data(repeating: 7, count: 32)
        let player = try await database.createPlayer(name: "Ada", language: nil, tokenHash: hash, now: Date())
        let lookups = try #require(database.lookups)
        #expect(try await database.player(tokenHash: hash)?.id == player.id)

        let taken = (0..<LookupConnections.count).compactMap { _ in lookups.take() }
        #expect(taken.count == LookupConnections.count)
        #expect(lookups.take() == nil)
        // More at once than the cooperative pool has threads and GRDB's pool has readers: a
        // lookup that waited for a connection here would hang this test.
        let found = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<64 {
                group.addTask {
                    // Asynchronous reads in between, which need those threads to give their readers back.
                    if index % 2 == 1 { _ = try await database.activeGroupIds(venueId: "aquarium") }
                    return try await database.player(tokenHash: hash)?.id
                }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(found.count == 64 && found.allSatisfy { $0 == player.id })
        for connection in taken { lookups.give(connection) }

        let other = Data(repeating: 8, count: 32)
        let bo = try await database.createPlayer(name: "Bo", language: nil, tokenHash: other, now: Date())
        #expect(try await database.player(tokenHash: other)?.id == bo.id, "a lookup connection sees what was just committed")
    }
}
