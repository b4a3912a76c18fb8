import Foundation
import GroupieCore
import Testing

@Suite("Membership rules")
struct MembershipRulesTests {
    let now = Date(timeIntervalSince1970: 1_000)

    func group(_ id: String, creator: String?, joinableFor: TimeInterval = 3600, closed: Group.Closure? = nil) -> Group {
        Group(
            id: id, venueId: "v", name: nil, joinCode: JoinCode(typed: "ABCDEF")!, creatorId: creator,
            createdAt: now, joinableUntil: now.addingTimeInterval(joinableFor), closed: closed
        )
    }

    func player(_ id: String, _ name: String = "Ada") -> Player {
        Player(id: id, name: name, language: nil, createdAt: now)
    }

    @Test("a member's change asks that the group is theirs; one that adds to it, that it is open; an outsider learns nothing")
    func memberChanges() throws {
        let closure = Group.Closure(at: now, reason: "Too loud")
        let closed = group("t", creator: "c", closed: closure)
        try MembershipRules.requireMember(of: "t", current: "t", group: group("t", creator: "c"), adding: true)
        try MembershipRules.requireMember(of: "t", current: "t", group: closed, adding: false)
        #expect(throws: MembershipError.groupClosed(closure)) { try MembershipRules.requireMember(of: "t", current: "t", group: closed, adding: true) }
        for current in [nil, "o"] {
            #expect(throws: MembershipError.groupNotFound) { try MembershipRules.requireMember(of: "t", current: current, group: closed, adding: true) }
        }
    }

    @Test("a joiner leaves their group first: its member-left, then the member-joined, each in its group")
    func joinMovesOn() throws {
        let target = GroupSeats(group: group("t", creator: "c"), memberIds: ["c"])
        let current = GroupSeats(group: group("o", creator: "x"), memberIds: ["x", "p"])
        let decision = try MembershipRules.join(target, player: player("p"), current: current, maximumSize: 5, now: now)
        #expect(decision.mutations == [.endMembership(groupId: "o", playerId: "p"), .addMembership(groupId: "t", playerId: "p")])
        #expect(decision.events.map(\.groupId) == ["o", "t"])
        #expect(decision.events.map(\.payload) == [.memberLeft(playerId: "p"), .memberJoined(playerId: "p", name: "Ada")])
    }

    @Test("joining one's own group changes nothing")
    func joinOwnGroup() throws {
        let seats = GroupSeats(group: group("t", creator: "c"), memberIds: ["c", "p"])
        #expect(try MembershipRules.join(seats, player: player("p"), current: seats, maximumSize: 2, now: now).isEmpty)
    }

    @Test("a closed group, one past its joining time and a full one refuse, each with its own cause, closure first")
    func refusals() {
        let closure = Group.Closure(at: now, reason: "Too loud")
        let closed = GroupSeats(group: group("t", creator: "c", joinableFor: -1, closed: closure), memberIds: ["c"])
        #expect(throws: MembershipError.groupClosed(closure)) {
            try MembershipRules.join(closed, player: self.player("p"), current: nil, maximumSize: 1, now: self.now)
        }
        let late = GroupSeats(group: group("t", creator: "c", joinableFor: -1), memberIds: ["c"])
        #expect(throws: MembershipError.joiningTimeOver) {
            try MembershipRules.join(late, player: self.player("p"), current: nil, maximumSize: 5, now: self.now)
        }
        let full = GroupSeats(group: group("t", creator: "c"), memberIds: ["c", "d"])
        #expect(throws: MembershipError.groupFull(maximum: 2)) {
            try MembershipRules.join(full, player: self.player("p"), current: nil, maximumSize: 2, now: self.now)
        }
    }

    @Test("a group made in advance passes to its first joiner")
    func firstJoinerCreates() throws {
        let card = GroupSeats(group: group("t", creator: nil), memberIds: [])
        let decision = try MembershipRules.join(card, player: player("p"), current: nil, maximumSize: 5, now: now)
        #expect(decision.mutations == [.addMembership(groupId: "t", playerId: "p"), .setCreator(groupId: "t", playerId: "p")])
        #expect(card.group.applying(decision.mutations).creatorId == "p")
    }

    @Test("a creator who leaves hands over to the longest-standing member; the last one leaves it to nobody")
    func creatorLeaves() {
        let seats = GroupSeats(group: group("g", creator: "a"), memberIds: ["a", "b", "c"])
        #expect(MembershipRules.leave(seats, playerId: "a").mutations == [.endMembership(groupId: "g", playerId: "a"), .setCreator(groupId: "g", playerId: "b")])
        #expect(MembershipRules.leave(seats, playerId: "c").mutations == [.endMembership(groupId: "g", playerId: "c")])
        let alone = GroupSeats(group: group("g", creator: "a"), memberIds: ["a"])
        #expect(MembershipRules.leave(alone, playerId: "a").mutations == [.endMembership(groupId: "g", playerId: "a"), .setCreator(groupId: "g", playerId: nil)])
    }

    @Test("only the creator removes others; strangers learn nothing; a non-member cannot be removed")
    func remove() throws {
        let seats = GroupSeats(group: group("g", creator: "a"), memberIds: ["a", "b", "c"])
        #expect(throws: MembershipError.notTheCreator) { try MembershipRules.remove(seats, playerId: "c", by: "b") }
        #expect(throws: MembershipError.groupNotFound) { try MembershipRules.remove(seats, playerId: "c", by: "stranger") }
        #expect(throws: MembershipError.notAMember) { try MembershipRules.remove(seats, playerId: "gone", by: "a") }
        #expect(try MembershipRules.remove(seats, playerId: "b", by: "b").events.map(\.payload) == [.memberLeft(playerId: "b")])
        #expect(try MembershipRules.remove(seats, playerId: "c", by: "a").mutations == [.endMembership(groupId: "g", playerId: "c")])
    }

    @Test("a creator starting a new group leaves the old one, which is told")
    func create() {
        let old = GroupSeats(group: group("o", creator: "p"), memberIds: ["p", "q"])
        let decision = MembershipRules.create(group("n", creator: "p"), creatorId: "p", current: old)
        #expect(decision.mutations == [
            .endMembership(groupId: "o", playerId: "p"), .setCreator(groupId: "o", playerId: "q"), .addMembership(groupId: "n", playerId: "p"),
        ])
        #expect(decision.events.map(\.groupId) == ["o"])
    }

    @Test("closing tells the group once; a rename is told only when the name changes, and only to a group")
    func closeAndRename() {
        let open = group("g", creator: "a")
        let closed = MembershipRules.close(open, reason: "Done", now: now)
        #expect(closed.events.map(\.payload) == [.groupClosed(reason: "Done")])
        #expect(MembershipRules.close(open.applying(closed.mutations), reason: "Again", now: now).isEmpty)
        #expect(MembershipRules.rename(player("p", "Ada"), to: "Ada", groupId: "g").isEmpty)
        #expect(MembershipRules.rename(player("p", "Ada"), to: "Bo", groupId: nil).events.isEmpty)
        #expect(MembershipRules.rename(player("p", "Ada"), to: "Bo", groupId: "g").events.map(\.payload) == [.memberRenamed(playerId: "p", name: "Bo")])
    }

    @Test("events are grouped by group in the order each first appears")
    func eventsByGroup() {
        let decision = GroupDecision(events: [("b", .memberLeft(playerId: "1")), ("a", .memberLeft(playerId: "2")), ("b", .memberLeft(playerId: "3"))])
        #expect(decision.eventsByGroup.map(\.groupId) == ["b", "a"])
        #expect(decision.eventsByGroup.first?.payloads == [.memberLeft(playerId: "1"), .memberLeft(playerId: "3")])
    }
}

extension MembershipRulesTests {
    @Test("the members after a decision: the joiner last, the one who left gone, the creator's role where the decision leaves it")
    func membersAfter() throws {
        let at = now.addingTimeInterval(60)
        // Into a group made in advance, with nobody: the joiner takes the creator's role.
        let empty = GroupSeats(group: group("t", creator: nil), memberIds: [])
        let first = try MembershipRules.join(empty, player: player("p", "Pia"), current: nil, maximumSize: 5, now: at)
        #expect([Member]().applying(first.mutations, to: empty.group, names: ["p": "Pia"], at: at)
            == [Member(playerId: "p", name: "Pia", joinedAt: at, isCreator: true)])
        // A second joiner comes last; the first stays the creator.
        let before = [Member(playerId: "c", name: "Cy", joinedAt: now, isCreator: true)]
        let target = GroupSeats(group: group("t", creator: "c"), memberIds: ["c"])
        let second = try MembershipRules.join(target, player: player("p", "Pia"), current: nil, maximumSize: 5, now: at)
        #expect(before.applying(second.mutations, to: target.group, names: ["p": "Pia"], at: at)
            == before + [Member(playerId: "p", name: "Pia", joinedAt: at, isCreator: false)])
        // The creator leaves: gone from the members, the role handed to the one who stays.
        let pair = before + [Member(playerId: "p", name: "Pia", joinedAt: at, isCreator: false)]
        let left = try MembershipRules.remove(GroupSeats(group: target.group, memberIds: ["c", "p"]), playerId: "c", by: "c")
        #expect(pair.applying(left.mutations, to: target.group, names: [:], at: at)
            == [Member(playerId: "p", name: "Pia", joinedAt: at, isCreator: true)])
        // Mutations of another group change nothing here; a rename renames.
        let elsewhere: [GroupMutation] = [.addMembership(groupId: "o", playerId: "q"), .endMembership(groupId: "o", playerId: "c")]
        #expect(before.applying(elsewhere, to: target.group, names: ["q": "Q"], at: at) == before)
        #expect(before.applying([.rename(playerId: "c", name: "Cyd")], to: target.group, names: [:], at: at).map(\.name) == ["Cyd"])
        // A member already there is not added twice; one who joined after `at` (another
        // instance's clock ahead) stays after the joiner, as the time joined orders them.
        #expect(before.applying(second.mutations.filter { if case .addMembership = $0 { true } else { false } }
            .map { _ in GroupMutation.addMembership(groupId: "t", playerId: "c") }, to: target.group, names: [:], at: at) == before)
        let ahead = [Member(playerId: "c", name: "Cy", joinedAt: at.addingTimeInterval(5), isCreator: true)]
        #expect(ahead.applying(second.mutations, to: target.group, names: ["p": "Pia"], at: at).map(\.playerId) == ["p", "c"])
    }
}

@Suite("Locked missions")
struct LockedMissionTests {
    @Test("a photo for a locked mission is refused; one for an unlocked mission, a free photo or an unknown mission passes")
    func requireUnlocked() throws {
        let rules = PhotoRulesTests()
        let empty = TaskPhotos(photos: [], picks: [:])
        #expect(throws: PhotoRules.Refusal.missionLocked(missionId: "b")) { try PhotoRules.requireUnlocked("b", before: empty, venue: rules.venue) }
        try PhotoRules.requireUnlocked("a", before: empty, venue: rules.venue)
        try PhotoRules.requireUnlocked(nil, before: empty, venue: rules.venue)
        try PhotoRules.requireUnlocked("gone", before: empty, venue: rules.venue)
        try PhotoRules.requireUnlocked("b", before: empty, venue: nil)
        let done = TaskPhotos(photos: [rules.photo("x", "a", "1"), rules.photo("y", "a", "2")], picks: [:])
        try PhotoRules.requireUnlocked("b", before: done, venue: rules.venue)
    }
}
