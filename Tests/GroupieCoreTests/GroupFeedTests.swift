import Foundation
import GroupieCore
import Testing

@Suite("The group's feed and its reactions")
struct GroupFeedTests {
    func event(_ seq: Int, _ kind: GroupEventKind, _ fields: [String: String] = [:]) -> GroupFeed.Source {
        GroupFeed.Source(seq: seq, kind: kind, fields: fields)
    }

    func reaction(_ seq: Int, on entry: Int, _ reaction: String, by playerId: String, _ on: Bool = true) -> GroupFeed.Source {
        event(seq, .reactionChanged, ["entry": String(entry), "reaction": reaction, "playerId": playerId, "on": on ? "true" : "false"])
    }

    var history: [GroupFeed.Source] {
        [
            event(1, .memberJoined, ["playerId": "p2", "name": "Bo"]),
            event(2, .taskClaimed, ["playerId": "p1", "name": "Ada", "missionId": "a", "taskId": "1"]),
            event(3, .photoAdded, ["photoId": "ph1", "photographerId": "p1", "photographerName": "Ada", "missionId": "a", "taskId": "1"]),
            event(4, .taskReleased, ["playerId": "p1", "missionId": "a", "taskId": "1"]),
            event(5, .taskDone, ["missionId": "a", "taskId": "1"]),
            event(6, .missionCompleted, ["missionId": "a"]),
            event(7, .collageReady, ["missionId": "a"]),
        ]
    }

    @Test("joins, photos, claims and completed missions, newest first; the rest of the events stay out")
    func entries() {
        let feed = GroupFeed.entries(history.shuffled(), limit: 10)
        #expect(feed.map(\.id) == [6, 3, 2, 1])
        #expect(feed.map(\.kind) == [.missionCompleted, .photoAdded, .taskClaimed, .memberJoined])
        #expect(feed.map(\.reactable) == [true, true, false, false])
        #expect(GroupFeed.entries(history, limit: 2).map(\.id) == [6, 3])
        #expect(GroupFeed.entries(history, limit: 0).isEmpty)
    }

    @Test("reactions are sets per member: given twice counts once, taken back goes, and only photos and missions take them")
    func reactions() {
        let feed = GroupFeed.entries(history + [
            reaction(8, on: 3, "heart", by: "p2"), reaction(9, on: 3, "heart", by: "p2"), reaction(10, on: 3, "heart", by: "p1"),
            reaction(11, on: 3, "star", by: "p2"), reaction(12, on: 3, "star", by: "p2", false),
            reaction(13, on: 6, "clap", by: "p1"), reaction(14, on: 1, "heart", by: "p1"), reaction(15, on: 99, "heart", by: "p1"),
            reaction(16, on: 6, "wow", by: "p2", false),
        ], limit: 10)
        let photo = feed.first { $0.id == 3 }, mission = feed.first { $0.id == 6 }, joined = feed.first { $0.id == 1 }
        #expect(photo?.reactions == ["heart": ["p1", "p2"]])
        #expect(mission?.reactions == ["clap": ["p1"]])
        #expect(joined?.reactions == [:])
    }

    @Test("a photo that left the group leaves the feed, with its reactions")
    func removedPhoto() {
        let feed = GroupFeed.entries(history + [
            reaction(8, on: 3, "heart", by: "p2"), event(9, .photoRemoved, ["photoId": "ph1", "photographerId": "p1", "photographerName": "Ada"]),
        ], limit: 10)
        #expect(feed.map(\.id) == [6, 2, 1])
    }

    @Test("a photo staff restored comes back once, as a new entry without the reactions it had")
    func restoredPhoto() {
        let photo = ["photoId": "ph1", "photographerId": "p1", "photographerName": "Ada", "missionId": "a", "taskId": "1"]
        var restored = photo
        restored["restored"] = "true"
        let feed = GroupFeed.entries(history + [
            reaction(8, on: 3, "heart", by: "p2"), event(9, .photoRemoved, photo), event(10, .photoAdded, restored),
            reaction(11, on: 3, "star", by: "p2"),
        ], limit: 10)
        #expect(feed.map(\.id) == [10, 6, 2, 1])
        #expect(feed.first?.reactions.isEmpty == true, "a reaction to the entry that left is not shown")
        let hiddenAgain = GroupFeed.entries(history + [event(9, .photoRemoved, photo), event(10, .photoAdded, restored), event(12, .photoRemoved, photo)], limit: 10)
        #expect(hiddenAgain.map(\.id) == [6, 2, 1])
    }

    @Test("a reaction is one of the fixed set, on a photo or a completed mission of the group")
    func rules() throws {
        #expect(
            try ReactionRules.react(entry: 3, kind: .photoAdded, reaction: "heart", on: true, given: nil, by: "p1")
                == [.reactionChanged(entry: 3, reaction: "heart", playerId: "p1", on: true)]
        )
        #expect(
            try ReactionRules.react(entry: 6, kind: .missionCompleted, reaction: "clap", on: false, given: true, by: "p2")
                == [.reactionChanged(entry: 6, reaction: "clap", playerId: "p2", on: false)]
        )
        #expect(throws: ReactionRules.Refusal.unknownReaction) { try ReactionRules.react(entry: 3, kind: .photoAdded, reaction: "poo", on: true, given: nil, by: "p1") }
        #expect(throws: ReactionRules.Refusal.notReactable) { try ReactionRules.react(entry: 2, kind: .taskClaimed, reaction: "heart", on: true, given: nil, by: "p1") }
        #expect(throws: ReactionRules.Refusal.notReactable) { try ReactionRules.react(entry: 99, kind: nil, reaction: "heart", on: true, given: true, by: "p1") }
        // What changes nothing tells nobody: a reaction given again, one taken off that was never given or is off.
        #expect(try ReactionRules.react(entry: 3, kind: .photoAdded, reaction: "heart", on: true, given: true, by: "p1").isEmpty)
        #expect(try ReactionRules.react(entry: 3, kind: .photoAdded, reaction: "heart", on: false, given: nil, by: "p1").isEmpty)
        #expect(try ReactionRules.react(entry: 3, kind: .photoAdded, reaction: "heart", on: false, given: false, by: "p1").isEmpty)
        #expect(try ReactionRules.react(entry: 3, kind: .photoAdded, reaction: "heart", on: true, given: false, by: "p1").count == 1)
        #expect(ReactionRules.given("true") == true && ReactionRules.given("false") == false && ReactionRules.given(nil) == nil)
        let fields = GroupEventPayload.reactionChanged(entry: 3, reaction: "heart", playerId: "p1", on: true).fields
        #expect(fields == ["entry": "3", "reaction": "heart", "playerId": "p1", "on": "true"])
    }
}
