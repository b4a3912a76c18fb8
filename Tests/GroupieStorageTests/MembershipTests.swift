import Foundation
import GRDB
import GroupieCore
@testable import GroupieSQLite
@testable import GroupieStorage
import Synchronization
import Testing

@Suite("Players and groups, on both backends")
struct MembershipTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test("The creator is the first member; codes use the unambiguous alphabet", arguments: Backend.chosen)
    func create(_ backend: Backend) async throws {
        let database = try await backend.open()
        func player(_ name: String) async throws -> Player {
            try await database.createPlayer(name: name, language: nil, tokenHash: Data(UUID().uuidString.utf8), now: now)
        }
        let alice = try await player("Alice")
        let group = try await database.createGroup(venueId: "aquarium", name: "Sharks", creatorId: alice.id, joinableFor: 3600, now: now).group
        #expect(group.joinCode.value.count == 6)
        #expect(group.joinCode.value.allSatisfy(JoinCode.alphabet.contains))
        let seen = try await database.groupContents(try #require(try await database.membership(playerId: alice.id, groupId: group.id)).group)
        #expect(seen.members.map(\.name) == ["Alice"])
        #expect(seen.members[0].isCreator)
    }

    @Test("A token and a group id give the player and, for a member only, the group at its version", arguments: Backend.chosen)
    func memberByToken(_ backend: Backend) async throws {
        let database = try await backend.open()
        let aliceToken = Data("alice-token".utf8), bobToken = Data("bob-token".utf8)
        let alice = try await database.createPlayer(name: "Alice", language: "fr", tokenHash: aliceToken, now: now)
        let bob = try await database.createPlayer(name: "Bob", language: nil, tokenHash: bobToken, now: now)
        let group = try await database.createGroup(venueId: "v", name: "G", creatorId: alice.id, joinableFor: 3600, now: now).group
        _ = try await database.appendEvents(groupId: group.id, [.memberJoined(playerId: alice.id, name: "Alice")], now: now)

        let member = try #require(try await database.member(tokenHash: aliceToken, groupId: group.id))
        #expect(member.player == alice)
        #expect(member.membership?.group == group)
        #expect(member.membership?.version == 1)
        #expect(member.membership?.version == (try await database.membership(playerId: alice.id, groupId: group.id))?.version)

        let stranger = try #require(try await database.member(tokenHash: bobToken, groupId: group.id))
        #expect(stranger.player == bob)
        #expect(stranger.membership == nil)
        #expect(try await database.member(tokenHash: Data("nobody".utf8), groupId: group.id) == nil)
        #expect(try await database.member(tokenHash: aliceToken, groupId: "no-such-group")?.membership == nil)

        try await database.removeMember(groupId: group.id, playerId: alice.id, by: alice.id, now: now)
        #expect(try await database.member(tokenHash: aliceToken, groupId: group.id)?.membership == nil, "a former member is a stranger")
    }

    @Test("Joining leaves the current group; history is kept", arguments: Backend.chosen)
    func changeGroup(_ backend: Backend) async throws {
        let database = try await backend.open()
        func player(_ name: String) async throws -> Player {
            try await database.createPlayer(name: name, language: nil, tokenHash: Data(UUID().uuidString.utf8), now: now)
        }
        let alice = try await player("Alice"), bob = try await player("Bob")
        let first = try await database.createGroup(venueId: "v", name: nil, creatorId: alice.id, joinableFor: 3600, now: now).group
        let second = try await database.createGroup(venueId: "v", name: nil, creatorId: bob.id, joinableFor: 3600, now: now).group
        let join = try await database.joinGroup(code: second.joinCode, playerId: alice.id, now: now.addingTimeInterval(5)) { _ in 5 }
        #expect(try await database.currentGroup(of: alice.id)?.id == second.id)
        // The events of both groups commit with the join, and are what is stored.
        #expect(join.left.map(\.kind) == [.memberLeft] && join.left.allSatisfy { $0.groupId == first.id })
        #expect(join.joined.map(\.kind) == [.memberJoined] && join.joined.allSatisfy { $0.groupId == second.id })
        #expect(join.joined.first?.data.contains("\"name\":\"Alice\"") == true)
        #expect(try await database.events(groupId: first.id, after: 0, limit: 10) == join.left)
        #expect(try await database.events(groupId: second.id, after: 0, limit: 10) == join.joined)
        // The join's answer uses the membership it gave: the group as stored, at its version.
        let stored = try #require(try await database.membership(playerId: alice.id, groupId: second.id))
        #expect(join.membership?.group == stored.group && join.membership?.version == stored.version)
        let again = try await database.joinGroup(code: second.joinCode, playerId: alice.id, now: now.addingTimeInterval(6)) { _ in 5 }
        #expect(again.left.isEmpty && again.joined.isEmpty, "joining one's own group changes nothing")
        #expect(again.membership == nil)
        let history = try await database.membershipHistory(of: alice.id)
        #expect(history.map(\.groupId) == [first.id, second.id])
        #expect(history[0].leftAt == now.addingTimeInterval(5))
        #expect(history[1].leftAt == nil)
        // Starting a group of one's own leaves the current one the same way.
        let third = try await database.createGroup(venueId: "v", name: nil, creatorId: alice.id, joinableFor: 3600, now: now.addingTimeInterval(7))
        #expect(third.left.map(\.kind) == [.memberLeft] && third.left.allSatisfy { $0.groupId == second.id } && third.joined.isEmpty)
        #expect(try await database.events(groupId: second.id, after: 0, limit: 10) == join.joined + third.left)
        #expect(try await database.currentGroup(of: alice.id)?.id == third.group.id)
    }

    @Test("A full group refuses; a closed group refuses; an unknown code is unknown", arguments: Backend.chosen)
    func refusals(_ backend: Backend) async throws {
        let database = try await backend.open()
        func player(_ name: String) async throws -> Player {
            try await database.createPlayer(name: name, language: nil, tokenHash: Data(UUID().uuidString.utf8), now: now)
        }
        let alice = try await player("Alice"), bob = try await player("Bob"), carol = try await player("Carol")
        let group = try await database.createGroup(venueId: "v", name: nil, creatorId: alice.id, joinableFor: 60, now: now).group
        _ = try await database.joinGroup(code: group.joinCode, playerId: bob.id, now: now) { _ in 2 }
        await #expect(throws: MembershipError.groupFull(maximum: 2)) {
            try await database.joinGroup(code: group.joinCode, playerId: carol.id, now: now) { _ in 2 }
        }
        await #expect(throws: MembershipError.joiningTimeOver) {
            try await database.joinGroup(code: group.joinCode, playerId: carol.id, now: now.addingTimeInterval(61)) { _ in 9 }
        }
        await #expect(throws: MembershipError.unknownCode) {
            try await database.joinGroup(code: JoinCode(typed: "ZZZZZZZZ")!, playerId: carol.id, now: now) { _ in 9 }
        }
        #expect(try await database.currentGroup(of: carol.id) == nil)
    }

    @Test("Two players race for the last place: one gets in, one is refused", arguments: Backend.chosen)
    func lastPlaceRace(_ backend: Backend) async throws {
        let database = try await backend.open()
        func player(_ name: String) async throws -> Player {
            try await database.createPlayer(name: name, language: nil, tokenHash: Data(UUID().uuidString.utf8), now: now)
        }
        let alice = try await player("Alice")
        let group = try await database.createGroup(venueId: "v", name: nil, creatorId: alice.id, joinableFor: 3600, now: now).group
        for round in 0..<10 {
            var racers: [Player] = []
            for index in 0..<2 { racers.append(try await player("Racer \(round)-\(index)")) }
            let maximum = 2 + round
            let results = await withTaskGroup(of: Bool.self) { tasks in
                for racer in racers {
                    tasks.addTask {
                        (try? await database.joinGroup(code: group.joinCode, playerId: racer.id, now: now) { _ in maximum }) != nil
                    }
                }
                return await tasks.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1)
            #expect(try await database.groupContents(group).members.count == maximum)
        }
    }

    /// Runs `jobs` at once; what each that failed threw, in words.
    static func failures(of jobs: [@Sendable () async throws -> Void]) async -> [String] {
        await withTaskGroup(of: String?.self) { tasks in
            for job in jobs {
                tasks.addTask {
                    do {
                        try await job()
                        return nil
                    } catch {
                        return String(reflecting: error)
                    }
                }
            }
            return await tasks.compactMap { $0 }.reduce(into: [String]()) { $0.append($1) }
        }
    }

    @Test("One player joins two groups at once, fifteen times: both joins succeed, the player ends up in exactly one", arguments: Backend.chosen)
    func twoGroupsRace(_ backend: Backend) async throws {
        let database = try await backend.open()
        func player(_ name: String) async throws -> Player {
            try await database.createPlayer(name: name, language: nil, tokenHash: Data(UUID().uuidString.utf8), now: now)
        }
        let alice = try await player("Alice"), bob = try await player("Bob")
        let first = try await database.createGroup(venueId: "v", name: nil, creatorId: alice.id, joinableFor: 3600, now: now).group
        let second = try await database.createGroup(venueId: "v", name: nil, creatorId: bob.id, joinableFor: 3600, now: now).group
        for round in 0..<15 {
            let carol = try await player("Carol \(round)")
            // As SQLite's single writer answers them: the later join moves the player on.
            let failures = await Self.failures(of: [first.joinCode, second.joinCode].map { code in
                { _ = try await database.joinGroup(code: code, playerId: carol.id, now: now) { _ in 99 } }
            })
            #expect(failures.isEmpty, "round \(round): \(failures)")
            let history = try await database.membershipHistory(of: carol.id)
            let active = history.filter { $0.leftAt == nil }
            #expect(active.count == 1, "round \(round)")
            // The later join moved her on: the group she left was told she came and went, the
            // other that she came, each once.
            #expect(history.count == 2 && history.filter { $0.leftAt != nil }.count == 1, "round \(round): \(history)")
            for group in [first, second] {
                let told = try await database.events(groupId: group.id, after: 0, limit: 1000).filter { $0.data.contains(carol.id) }.map(\.kind)
                #expect(told == (group.id == active.first?.groupId ? [.memberJoined] : [.memberJoined, .memberLeft]), "round \(round)")
            }
        }
    }

    @Test("Two players swap groups at once, twenty times: every join succeeds and each ends in the other's group", arguments: Backend.chosen)
    func swapRace(_ backend: Backend) async throws {
        let database = try await backend.open()
        func player(_ name: String) async throws -> Player {
            try await database.createPlayer(name: name, language: nil, tokenHash: Data(UUID().uuidString.utf8), now: now)
        }
        let alice = try await player("Alice"), bob = try await player("Bob")
        var groupOf = [
            alice.id: try await database.createGroup(venueId: "v", name: nil, creatorId: alice.id, joinableFor: 3600, now: now).group,
            bob.id: try await database.createGroup(venueId: "v", name: nil, creatorId: bob.id, joinableFor: 3600, now: now).group,
        ]
        for round in 0..<20 {
            let (a, b) = (try #require(groupOf[alice.id]), try #require(groupOf[bob.id]))
            let failures = await Self.failures(of: [(alice.id, b), (bob.id, a)].map { playerId, target in
                { _ = try await database.joinGroup(code: target.joinCode, playerId: playerId, now: now) { _ in 99 } }
            })
            #expect(failures.isEmpty, "round \(round): \(failures)")
            groupOf = [alice.id: b, bob.id: a]
            #expect(try await database.currentGroup(of: alice.id)?.id == b.id, "round \(round)")
            #expect(try await database.currentGroup(of: bob.id)?.id == a.id, "round \(round)")
        }
    }

    @Test("A join's gate reads its keys' failures within its window, and its refusal changes nothing", arguments: Backend.chosen)
    func gatedJoin(_ backend: Backend) async throws {
        let database = try await backend.open()
        func player(_ name: String) async throws -> Player {
            try await database.createPlayer(name: name, language: nil, tokenHash: Data(UUID().uuidString.utf8), now: now)
        }
        let alice = try await player("Alice"), bob = try await player("Bob")
        let group = try await database.createGroup(venueId: "v", name: nil, creatorId: alice.id, joinableFor: 3600, now: now).group
        let before = try await database.events(groupId: group.id, after: 0, limit: 100).count
        let key = "join-player:" + bob.id
        try await database.recordFailure(of: key, now: now.addingTimeInterval(-90), window: 600)
        try await database.recordFailure(of: key, now: now.addingTimeInterval(-30), window: 600)
        try await database.recordFailure(of: "join-player:someone-else", now: now.addingTimeInterval(-10), window: 600)
        struct Refused: Error {}
        let seen = Mutex<[String: [Date]]?>(nil)
        let refusing = FailureGate(keys: [key, "join-address:nowhere"], window: 60) { failures in
            seen.withLock { $0 = failures }
            throw Refused()
        }
        await #expect(throws: Refused.self) {
            try await database.joinGroup(code: group.joinCode, playerId: bob.id, now: now, gate: refusing) { _ in 99 }
        }
        #expect(seen.withLock { $0?.filter { !$0.value.isEmpty } } == [key: [now.addingTimeInterval(-30)]])
        #expect(try await database.currentGroup(of: bob.id) == nil)
        #expect(try await database.events(groupId: group.id, after: 0, limit: 100).count == before)
        // A wrong code is refused by the gate too, before it is found unknown.
        await #expect(throws: Refused.self) {
            try await database.joinGroup(code: try #require(JoinCode(typed: "ZZZZZZ")), playerId: bob.id, now: now, gate: refusing) { _ in 99 }
        }
        let passing = FailureGate(keys: [key], window: 60) { _ in }
        _ = try await database.joinGroup(code: group.joinCode, playerId: bob.id, now: now, gate: passing) { _ in 99 }
        #expect(try await database.currentGroup(of: bob.id)?.id == group.id)
    }

    @Test("The database itself refuses a second active membership", arguments: Backend.chosen)
    func databaseEnforcesOneGroup(_ backend: Backend) async throws {
        let database = try await backend.open()
        func player(_ name: String) async throws -> Player {
            try await database.createPlayer(name: name, language: nil, tokenHash: Data(UUID().uuidString.utf8), now: now)
        }
        let alice = try await player("Alice"), bob = try await player("Bob"), carol = try await player("Carol")
        let other = try await database.createGroup(venueId: "v", name: nil, creatorId: bob.id, joinableFor: 3600, now: now).group
        _ = try await database.createGroup(venueId: "v", name: nil, creatorId: alice.id, joinableFor: 3600, now: now).group
        // The same statement for a player in no group is taken: the statement itself is sound.
        try await Backend.execute("INSERT INTO membership (group_id, player_id, joined_at) VALUES ('\(other.id)', '\(carol.id)', 0)", on: database)
        do {
            try await Backend.execute("INSERT INTO membership (group_id, player_id, joined_at) VALUES ('\(other.id)', '\(alice.id)', 0)", on: database)
            Issue.record("a second active membership was stored")
        } catch {
            #expect(Backend.isOneActiveMembershipViolation(error), "\(String(reflecting: error))")
        }
    }

    @Test("When the creator leaves, the longest-standing member becomes creator", arguments: Backend.chosen)
    func creatorHandover(_ backend: Backend) async throws {
        let database = try await backend.open()
        func player(_ name: String) async throws -> Player {
            try await database.createPlayer(name: name, language: nil, tokenHash: Data(UUID().uuidString.utf8), now: now)
        }
        let alice = try await player("Alice"), bob = try await player("Bob"), carol = try await player("Carol")
        let group = try await database.createGroup(venueId: "v", name: nil, creatorId: alice.id, joinableFor: 3600, now: now).group
        _ = try await database.joinGroup(code: group.joinCode, playerId: bob.id, now: now.addingTimeInterval(1)) { _ in 5 }
        _ = try await database.joinGroup(code: group.joinCode, playerId: carol.id, now: now.addingTimeInterval(2)) { _ in 5 }
        await #expect(throws: MembershipError.notTheCreator) {
            try await database.removeMember(groupId: group.id, playerId: carol.id, by: bob.id, now: now)
        }
        try await database.removeMember(groupId: group.id, playerId: alice.id, by: alice.id, now: now.addingTimeInterval(3))
        let seen = try await database.groupContents(try #require(try await database.membership(playerId: bob.id, groupId: group.id)).group)
        #expect(seen.members.filter(\.isCreator).map(\.name) == ["Bob"])
        try await database.removeMember(groupId: group.id, playerId: carol.id, by: bob.id, now: now.addingTimeInterval(4))
        #expect(try await database.membership(playerId: carol.id, groupId: group.id) == nil)
        #expect(try await database.membership(playerId: alice.id, groupId: group.id) == nil)
    }

    @Test("Erasing a player removes them and their memberships, and hands over their group", arguments: Backend.chosen)
    func erase(_ backend: Backend) async throws {
        let database = try await backend.open()
        func player(_ name: String) async throws -> Player {
            try await database.createPlayer(name: name, language: nil, tokenHash: Data(UUID().uuidString.utf8), now: now)
        }
        let alice = try await player("Alice"), bob = try await player("Bob")
        let group = try await database.createGroup(venueId: "v", name: nil, creatorId: alice.id, joinableFor: 3600, now: now).group
        _ = try await database.joinGroup(code: group.joinCode, playerId: bob.id, now: now.addingTimeInterval(1)) { _ in 5 }
        try await database.erasePlayer(id: alice.id, now: now.addingTimeInterval(2)) { _ in nil }
        #expect(try await database.membershipHistory(of: alice.id).isEmpty)
        let seen = try await database.groupContents(try #require(try await database.membership(playerId: bob.id, groupId: group.id)).group)
        #expect(seen.members.map(\.name) == ["Bob"])
        #expect(seen.members[0].isCreator)
        // Left by everyone, the group passes to whoever joins next, and the join's answer says so.
        try await database.removeMember(groupId: group.id, playerId: bob.id, by: bob.id, now: now.addingTimeInterval(3))
        let carol = try await player("Carol")
        let join = try await database.joinGroup(code: group.joinCode, playerId: carol.id, now: now.addingTimeInterval(4)) { _ in 5 }
        #expect(join.membership?.group.creatorId == carol.id)
        #expect(join.membership?.group == (try await database.membership(playerId: carol.id, groupId: group.id))?.group)
        if let sqlite = database as? SQLiteStore { #expect(try await sqlite.integrityCheck() == "ok") }
    }

    @Test("Retention takes players who belong to no group any more, with their names; players of a kept group stay", arguments: Backend.chosen)
    func retentionReachesPlayers(_ backend: Backend) async throws {
        let database = try await backend.open()
        let old = now, cutoff = now.addingTimeInterval(30 * 24 * 3600), later = cutoff.addingTimeInterval(3600)
        func player(_ name: String, at date: Date) async throws -> Player {
            try await database.createPlayer(name: name, language: nil, tokenHash: Data(UUID().uuidString.utf8), now: date)
        }
        let lone = try await player("Lone", at: old)  // never joined a group
        let ada = try await player("Ada", at: old)  // only in a group that retention deletes
        let bo = try await player("Bo", at: old)  // made long ago, in a group that is kept
        let fresh = try await player("Fresh", at: later)  // made after the cutoff, in no group
        _ = try await database.createGroup(venueId: "v", name: nil, creatorId: ada.id, joinableFor: 3600, now: old)
        _ = try await database.createGroup(venueId: "v", name: nil, creatorId: bo.id, joinableFor: 3600, now: later)
        let deleted = try await database.deleteGroups(createdBefore: cutoff)
        #expect(deleted.groups == 1)
        #expect(try await database.player(id: lone.id) == nil)
        #expect(try await database.player(id: ada.id) == nil)
        #expect(try await database.player(id: bo.id)?.name == "Bo")
        #expect(try await database.player(id: fresh.id)?.name == "Fresh")
    }
}
