import Foundation
import GroupieCore
@testable import GroupiePostgres
@testable import GroupieStorage
import GroupieTestSupport
import PostgresNIO
import Synchronization
import Testing

/// A join's one statement on PostgreSQL against changes another transaction holds open.
@Suite("Joins against open transactions, on PostgreSQL", .enabled(if: Backend.chosen.contains(.postgresql)))
struct JoinRaceTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let contract = StoreContractTests()

    func store() async throws -> PostgresStore {
        try #require(try await Backend.postgresql.open() as? PostgresStore)
    }

    @Test("A join the wrong-code limit refuses touches no group: it is refused while another transaction holds the group's row")
    func refusedTouchesNoGroup() async throws {
        let store = try await store()
        let ada = try await contract.player("Ada", in: store), bo = try await contract.player("Bo", in: store)
        let group = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        try await store.recordFailure(of: "join-player:" + bo.id, now: now.addingTimeInterval(-1), window: 600)
        struct Refused: Error {}
        let gate = FailureGate(keys: ["join-player:" + bo.id], window: 60) { _ in throw Refused() }
        try await store.client.withConnection { holder in
            try await holder.query("BEGIN", logger: Backend.logger)
            try await holder.query("SELECT 1 FROM play_group WHERE id = \(group.id) FOR UPDATE", logger: Backend.logger)
            // Had the join read the group, it would wait for the row until the holder lets go.
            let outcome = Mutex<String?>(nil)
            let joining = Task {
                do {
                    _ = try await store.joinGroup(code: group.joinCode, playerId: bo.id, now: self.now, gate: gate) { _ in 5 }
                    outcome.withLock { $0 = "joined" }
                } catch is Refused {
                    outcome.withLock { $0 = "refused" }
                } catch {
                    outcome.withLock { $0 = "\(error)" }
                }
            }
            // Either the join is answered, or it waits for the group's row: then it read the group.
            try await eventually(.seconds(120), "the join answered or waiting for a lock") {
                if outcome.withLock({ $0 }) != nil { return true }
                return try await self.lockWaiters(store) > 0
            }
            let beforeRelease = outcome.withLock { $0 }
            try await holder.query("ROLLBACK", logger: Backend.logger)
            await joining.value
            #expect(beforeRelease == "refused", "\(outcome.withLock { $0 } ?? "no answer")")
        }
        #expect(try await store.currentGroup(of: bo.id) == nil)
    }

    @Test("A rename committed while a join waits for the player's row: the join hands back no contents with the old name")
    func renameDuringJoin() async throws {
        let store = try await store()
        let ada = try await contract.player("Ada", in: store), bo = try await contract.player("Bo", in: store)
        let group = try await store.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: now).group
        _ = try await store.joinGroup(code: group.joinCode, playerId: bo.id, now: now) { _ in 5 }
        // Bo claims a task and leaves: his claim ends with his membership and stays gone when he is back.
        _ = try await store.claimTask(groupId: group.id, task: contract.taskA1, by: bo, venue: contract.venue, now: now)
        try await store.removeMember(groupId: group.id, playerId: bo.id, by: bo.id, now: now)
        let join = try await store.client.withConnection { renamer in
            try await renamer.query("BEGIN", logger: Backend.logger)
            try await renamer.query("UPDATE player SET name = 'Bob' WHERE id = \(bo.id)", logger: Backend.logger)
            let joining = Task { try await store.joinGroup(code: group.joinCode, playerId: bo.id, now: self.now.addingTimeInterval(1)) { _ in 5 } }
            // The join's statement begins, then waits for Bo's row: PostgreSQL shows it waiting on a lock.
            try await eventually(.seconds(120), "the join waiting for Bo's row") { try await self.lockWaiters(store) > 0 }
            try await renamer.query("COMMIT", logger: Backend.logger)
            return try await joining.value
        }
        let membership = try #require(try await store.membership(playerId: bo.id, groupId: group.id))
        let read = StoreContractTests.SeenContents(try await store.groupContents(membership.group))
        #expect(read.members.map(\.name) == ["Ada", "Bob"])
        // The join waited for the rename (PostgreSQL showed it waiting on the row): the contents
        // it read before show the old name, and it hands none back; the group read has the new.
        #expect(join.contents == nil, "contents read before the rename: \(String(describing: join.contents.map(StoreContractTests.SeenContents.init)))")
        #expect(read.claims.isEmpty)
    }

    /// How many statements in the store's database wait for a lock now.
    func lockWaiters(_ store: PostgresStore) async throws -> Int {
        try await store.client.withConnection { connection in
            try await connection.value(
                "SELECT COUNT(*)::int FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
                as: Int.self, logger: Backend.logger
            ) ?? 0
        }
    }
}
