import Foundation
import GroupieCore
import Testing

@Suite("Visit tally rules")
struct VisitTallyRulesTests {
    typealias Rules = VisitTallyRules
    typealias Key = VisitTallyRules.TallyKey

    /// 2026-11-23 10:00 UTC, plus minutes.
    static func at(_ minutes: Double) -> Double { 1_795_428_000 + minutes * 60 }
    static let quarter = Int(at(0) / 900)

    static func event(_ kind: GroupEventKind, _ mission: String? = nil, _ task: String? = nil, _ minutes: Double) -> Rules.Event {
        .init(kind: kind, missionId: mission, taskId: task, at: at(minutes))
    }

    static func fresh(played: Bool = false) -> Rules.GroupVisit {
        .init(groupId: "g", venueId: "v", createdAt: at(0), played: played)
    }

    /// Applies each command's events in turn, as a backend does, and sums the deltas.
    static func play(_ commands: [[Rules.Event]], from start: Rules.GroupVisit, joins: Bool = true) -> (Rules.GroupVisit, [Key: Int]) {
        var visit = start, tally = Rules.counts(of: start)
        for (index, events) in commands.enumerated() {
            let change = Rules.change(visit, events: events, joins: joins && index == 0)
            visit = change.visit
            for (key, count) in change.tally { tally[key, default: 0] += count }
        }
        return (visit, tally.filter { $0.value != 0 })
    }

    @Test("A group nobody joined does not count, nor its photos; the first membership counts it with the photos it has")
    func played() {
        var visit = Self.fresh()
        let photo = Rules.change(visit, events: [Self.event(.photoAdded, nil, nil, 1)])
        #expect(photo.tally.isEmpty && photo.groupChanged && photo.visit.photosAdded == 1)
        visit = photo.visit
        let joined = Rules.change(visit, events: [Self.event(.memberJoined, nil, nil, 2)], joins: true)
        #expect(joined.groupChanged && joined.visit.played)
        #expect(joined.tally == [Key(venueId: "v", kind: .group, value: Self.quarter): 1, Key(venueId: "v", kind: .photos, value: 1): 1])
        let again = Rules.change(joined.visit, events: [Self.event(.memberJoined, nil, nil, 3)], joins: true)
        #expect(again.isEmpty, "a second member changes nothing")
        let more = Rules.change(joined.visit, events: [Self.event(.photoAdded, nil, nil, 4)])
        #expect(more.tally == [Key(venueId: "v", kind: .photos, value: 1): -1, Key(venueId: "v", kind: .photos, value: 2): 1])
    }

    @Test("A mission starts with its first photo of a task, a task is timed from it in whole seconds, a completion counts in its quarter hour")
    func mission() {
        let (visit, tally) = Self.play([
            [Self.event(.photoAdded, "a", nil, 1)],  // no task: starts nothing
            [Self.event(.photoAdded, "a", "1", 2), Self.event(.taskDone, "a", "1", 2)],
            [.init(kind: .photoAdded, missionId: "a", taskId: "2", at: Self.at(2) + 90.5), .init(kind: .taskDone, missionId: "a", taskId: "2", at: Self.at(2) + 90.5),
             .init(kind: .missionCompleted, missionId: "a", taskId: nil, at: Self.at(2) + 90.5)],
            [Self.event(.taskDone, "a", "1", 30)],  // done before: not again
            [Self.event(.taskDone, "b", "1", 31)],  // mission not started
        ], from: Self.fresh())
        #expect(visit.missions == ["a": .init(startedAt: Self.at(2), completedAt: Self.at(2) + 90.5)])
        #expect(visit.tasks == [.init(missionId: "a", taskId: "1"): 0, .init(missionId: "a", taskId: "2"): 91, .init(missionId: "b", taskId: "1"): -1])
        #expect(tally == [
            Key(venueId: "v", kind: .group, value: Self.quarter): 1,
            Key(venueId: "v", kind: .photos, value: 3): 1,
            Key(venueId: "v", kind: .mission, missionId: "a", value: 91): 1,  // 90.5 rounds away from zero
            Key(venueId: "v", kind: .completion, value: Self.quarter): 1,
            Key(venueId: "v", kind: .task, missionId: "a", taskId: "1", value: 0): 1,
            Key(venueId: "v", kind: .task, missionId: "a", taskId: "2", value: 91): 1,
            Key(venueId: "v", kind: .task, missionId: "b", taskId: "1", value: -1): 1,
        ])
    }

    @Test("A task undone takes its mission's completion back until it completes again, at the new time")
    func undoneAndRedone() {
        let start = Self.play([[Self.event(.photoAdded, "a", "1", 1), Self.event(.taskDone, "a", "1", 1), Self.event(.missionCompleted, "a", nil, 1)]], from: Self.fresh()).0
        let undone = Rules.change(start, events: [Self.event(.photoRemoved, "a", "1", 20), Self.event(.taskUndone, "a", "1", 20)])
        #expect(undone.missions == ["a": .init(startedAt: Self.at(1))])
        #expect(undone.tally == [
            Key(venueId: "v", kind: .mission, missionId: "a", value: 0): -1, Key(venueId: "v", kind: .mission, missionId: "a", value: -1): 1,
            Key(venueId: "v", kind: .completion, value: Self.quarter): -1,
        ])
        #expect(Rules.change(undone.visit, events: [Self.event(.taskUndone, "a", "1", 21)]).isEmpty, "nothing more to take back")
        let redone = Rules.change(undone.visit, events: [Self.event(.photoAdded, "a", "1", 40), Self.event(.taskDone, "a", "1", 40), Self.event(.missionCompleted, "a", nil, 40)])
        #expect(redone.visit.missions["a"] == .init(startedAt: Self.at(1), completedAt: Self.at(40)), "the start stays the first photo's")
        #expect(redone.visit.tasks[.init(missionId: "a", taskId: "1")] == 0, "a task keeps its first time done")
        #expect(redone.tally == [
            Key(venueId: "v", kind: .photos, value: 1): -1, Key(venueId: "v", kind: .photos, value: 2): 1,
            Key(venueId: "v", kind: .mission, missionId: "a", value: -1): -1, Key(venueId: "v", kind: .mission, missionId: "a", value: 39 * 60): 1,
            Key(venueId: "v", kind: .completion, value: Self.quarter + 2): 1,
        ])
        let both = Rules.change(start, events: [Self.event(.taskUndone, "a", "1", 5), Self.event(.missionCompleted, "a", nil, 5)])
        #expect(both.tally == [
            Key(venueId: "v", kind: .mission, missionId: "a", value: 0): -1, Key(venueId: "v", kind: .mission, missionId: "a", value: 240): 1,
        ], "undone and completed again in one command: only the time moves")
    }

    @Test("A completion before any photo of a task counts its quarter hour, and the mission once a photo starts it")
    func completedBeforeStarted() {
        let completed = Rules.change(Self.fresh(played: true), events: [Self.event(.missionCompleted, "a", nil, 10)])
        #expect(completed.missions == ["a": .init(completedAt: Self.at(10))])
        #expect(completed.tally == [Key(venueId: "v", kind: .completion, value: Self.quarter): 1])
        let started = Rules.change(completed.visit, events: [Self.event(.photoAdded, "a", "1", 20)])
        #expect(started.tally == [
            Key(venueId: "v", kind: .photos, value: 0): -1, Key(venueId: "v", kind: .photos, value: 1): 1,
            Key(venueId: "v", kind: .mission, missionId: "a", value: -600): 1,
        ])
    }

    @Test("A photo staff restored is not counted again; the histories count each photo once by its id")
    func restoredOnce() {
        var restored = Self.event(.photoAdded, "a", "1", 9)
        restored.restored = true
        let (visit, tally) = Self.play([[Self.event(.photoAdded, "a", "1", 1)], [Self.event(.photoRemoved, "a", "1", 5)], [restored]], from: Self.fresh())
        #expect(visit.photosAdded == 1)
        #expect(tally[Key(venueId: "v", kind: .photos, value: 1)] == 1 && tally[Key(venueId: "v", kind: .photos, value: 2)] == nil)
        let history = VisitNumbers.History(groupId: "g", startedAt: Date(timeIntervalSince1970: Self.at(0)), events: [
            .init(kind: .photoAdded, missionId: "a", taskId: "1", at: Date(timeIntervalSince1970: Self.at(1)), photoId: "x"),
            .init(kind: .photoRemoved, missionId: "a", taskId: "1", at: Date(timeIntervalSince1970: Self.at(5)), photoId: "x"),
            .init(kind: .photoAdded, missionId: "a", taskId: "1", at: Date(timeIntervalSince1970: Self.at(9)), photoId: "x"),
        ])
        #expect(Self.tally(tally) == VisitNumbers.Tally(histories: [history]))
        #expect(Rules.Event(.photoAdded(Photo(
            id: "x", groupId: "g", photographerId: "p", photographerName: "Ada", missionId: "a", taskId: "1",
            blob: "b", format: "jpeg", width: 1, height: 1, createdAt: Date(timeIntervalSince1970: 0)
        ), restored: true), at: Self.at(9)).restored, "read from the event's payload")
    }

    @Test("A mission of questions starts with its first answer, right or wrong, and is timed from it")
    func answeredMission() {
        let (visit, tally) = Self.play([
            [Self.event(.taskAnswered, "q", "1", 2)],
            [Self.event(.taskAnswered, "q", "1", 3), Self.event(.taskDone, "q", "1", 3)],
            [Self.event(.taskAnswered, "q", "2", 6), Self.event(.taskDone, "q", "2", 6), Self.event(.missionCompleted, "q", nil, 6)],
        ], from: Self.fresh())
        #expect(visit.missions["q"] == .init(startedAt: Self.at(2), completedAt: Self.at(6)))
        #expect(tally[Key(venueId: "v", kind: .mission, missionId: "q", value: 240)] == 1, "four minutes from the first answer")
        #expect(tally[Key(venueId: "v", kind: .task, missionId: "q", taskId: "1", value: 60)] == 1)
        #expect(tally[Key(venueId: "v", kind: .task, missionId: "q", taskId: "2", value: 240)] == 1)
        let history = VisitNumbers.History(groupId: "g", startedAt: Date(timeIntervalSince1970: Self.at(0)), events: [
            (VisitNumbers.History.Event(kind: .taskAnswered, missionId: "q", taskId: "1", at: Date(timeIntervalSince1970: Self.at(2)))),
            .init(kind: .taskAnswered, missionId: "q", taskId: "1", at: Date(timeIntervalSince1970: Self.at(3))),
            .init(kind: .taskDone, missionId: "q", taskId: "1", at: Date(timeIntervalSince1970: Self.at(3))),
            .init(kind: .taskAnswered, missionId: "q", taskId: "2", at: Date(timeIntervalSince1970: Self.at(6))),
            .init(kind: .taskDone, missionId: "q", taskId: "2", at: Date(timeIntervalSince1970: Self.at(6))),
            .init(kind: .missionCompleted, missionId: "q", taskId: nil, at: Date(timeIntervalSince1970: Self.at(6))),
        ])
        #expect(Self.tally(tally) == VisitNumbers.Tally(histories: [history]))
        #expect(VisitNumbers.isPlaying(history, now: Date(timeIntervalSince1970: Self.at(33))), "an answer 27 minutes ago is playing")
        let restoredLater = VisitNumbers.History(groupId: "g", startedAt: Date(timeIntervalSince1970: Self.at(0)), events: [
            .init(kind: .photoAdded, missionId: "a", taskId: "1", at: Date(timeIntervalSince1970: Self.at(1)), photoId: "x"),
            .init(kind: .photoAdded, missionId: "a", taskId: "1", at: Date(timeIntervalSince1970: Self.at(40)), photoId: "x"),
        ])
        #expect(!VisitNumbers.isPlaying(restoredLater, now: Date(timeIntervalSince1970: Self.at(45))), "staff restoring a photo is not the group playing")
    }

    @Test("Other events change nothing")
    func others() {
        let visit = Self.play([[Self.event(.photoAdded, "a", "1", 1)]], from: Self.fresh()).0
        let kinds: [GroupEventKind] = [.memberLeft, .memberRenamed, .photoRemoved, .choiceChanged, .taskClaimed, .collageReady, .groupClosed, .staffMessage]
        #expect(Rules.change(visit, events: kinds.map { Self.event($0, "a", "1", 5) }).isEmpty)
        #expect(!Rules.touches([.groupClosed(reason: "x"), .staffMessage(text: "hi")]))
        #expect(Rules.touches([.taskUndone(.init(missionId: "a", taskId: "1"))]) && Rules.touches([], joins: true))
    }

    @Test("A group that goes takes all its counts out, and only its own")
    func removal() {
        let (visit, tally) = Self.play([
            [Self.event(.photoAdded, "a", "1", 1), Self.event(.taskDone, "a", "1", 1), Self.event(.missionCompleted, "a", nil, 1)],
            [Self.event(.photoAdded, "b", "1", 3)],
        ], from: Self.fresh())
        var other = Self.fresh(played: true)
        other.groupId = "h"
        other.venueId = "w"
        var removed = Rules.removal(of: [visit, other])
        for (key, count) in tally { removed[key, default: 0] += count }
        removed[Key(venueId: "w", kind: .group, value: Self.quarter), default: 0] += 1
        removed[Key(venueId: "w", kind: .photos, value: 0), default: 0] += 1
        #expect(removed.allSatisfy { $0.value == 0 })
        #expect(Rules.removal(of: [Self.fresh()]).isEmpty, "a group nobody joined had no counts")
    }

    @Test("Counted command by command, the tally of played groups is the numbers page's count of their events")
    func sameAsHistories() {
        var generator = SystemRandomNumberGenerator()
        let kinds: [GroupEventKind] = [.photoAdded, .taskAnswered, .taskDone, .taskUndone, .missionCompleted, .memberLeft]
        for round in 0..<200 {
            var minutes = 0.0
            var commands: [[Rules.Event]] = []
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                minutes += Double.random(in: 0...40, using: &generator)
                commands.append((0..<Int.random(in: 1...3, using: &generator)).map { _ in
                    Self.event(kinds.randomElement(using: &generator)!, ["a", "b"].randomElement(using: &generator)!, ["1", "2", nil].randomElement(using: &generator)!, minutes)
                })
            }
            let tally = Self.play(commands, from: Self.fresh()).1
            let history = VisitNumbers.History(groupId: "g", startedAt: Date(timeIntervalSince1970: Self.at(0)), events: commands.flatMap { $0 }.map {
                .init(kind: $0.kind, missionId: $0.missionId, taskId: $0.taskId, at: Date(timeIntervalSince1970: $0.at))
            })
            #expect(Self.tally(tally) == VisitNumbers.Tally(histories: [history]), "round \(round): \(commands)")
        }
    }

    /// The tally's rows as the numbers page reads them.
    static func tally(_ rows: [Key: Int]) -> VisitNumbers.Tally {
        var tally = VisitNumbers.Tally()
        for (key, count) in rows where count > 0 {
            switch key.kind {
            case .group: tally.groupsStarted[key.value, default: 0] += count
            case .completion: tally.missionsCompleted[key.value, default: 0] += count
            case .photos: tally.photosPerGroup[key.value, default: 0] += count
            case .mission: tally.missions[key.missionId, default: [:]][key.value, default: 0] += count
            case .task: tally.tasks[.init(missionId: key.missionId, taskId: key.taskId), default: [:]][key.value, default: 0] += count
            }
        }
        return tally
    }
}
