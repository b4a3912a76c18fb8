import Foundation
import GroupieCore
import Testing

@Suite("Visit numbers: groups still playing, groups nobody joined, completions taken back")
struct VisitNumbersPlayingTests {
    let venue = VisitNumbersTests().venue
    var histories: [VisitNumbers.History] { VisitNumbersTests().histories }
    static func at(_ minutes: Double) -> Date { VisitNumbersTests.at(minutes) }
    static func event(_ kind: GroupEventKind, _ mission: String? = nil, _ task: String? = nil, _ minutes: Double) -> VisitNumbers.History.Event {
        VisitNumbersTests.event(kind, mission, task, minutes)
    }

    @Test("g2 took a/1 at 70: playing until 100, not dropped off a nor skipping a/2 until then; closing it stops it at once")
    func playing() {
        let tally = VisitNumbers.Tally(histories: histories)
        let early = VisitNumbers(venue: venue, tally: tally, recent: histories, now: Self.at(80))
        #expect(early.missions[0].started == 3 && early.missions[0].completed == 2 && early.missions[0].playing == 1 && early.missions[0].dropOff == 0)
        #expect(early.tasks.first { $0.missionId == "a" && $0.taskId == "2" }?.skipped == 0)
        let late = VisitNumbers(venue: venue, tally: tally, recent: histories, now: Self.at(100))
        #expect(late.missions[0].playing == 0 && late.missions[0].dropOff == 1)
        #expect(late.tasks.first { $0.missionId == "a" && $0.taskId == "2" }?.skipped == 1)

        var closed = histories
        closed[1].events.append(Self.event(.groupClosed, nil, nil, 75))
        #expect(VisitNumbers(venue: venue, tally: tally, recent: closed, now: Self.at(80)).missions[0].dropOff == 1)
        closed[1].events.append(Self.event(.groupReopened, nil, nil, 76))
        #expect(VisitNumbers(venue: venue, tally: tally, recent: closed, now: Self.at(80)).missions[0].dropOff == 0)
    }

    @Test("A group nobody joined counts neither as a group nor in the photos per group")
    func notPlayed() {
        var all = histories
        all.append(.init(groupId: "table-1", startedAt: Self.at(1), events: [], played: false))
        let numbers = VisitNumbers.compute(venue: venue, histories: all)
        #expect(numbers.groups == 3 && numbers.days.map(\.groupsStarted).reduce(0, +) == 3)
        #expect(numbers.medianPhotosPerGroup == 2)
        #expect(VisitNumbers.researchEvents(all[3]).isEmpty)
    }

    @Test("A task undone takes the mission's completion back until it completes again; the research export says so once")
    func takenBack() {
        var all = histories
        all[0].events += [
            Self.event(.taskUndone, "a", "2", 30),
            Self.event(.photoAdded, "a", "2", 40), Self.event(.taskDone, "a", "2", 40), Self.event(.missionCompleted, "a", nil, 40),
        ]
        let again = VisitNumbers.compute(venue: venue, histories: all)
        #expect(again.missions[0].completed == 2, "completed once, whatever the times between")
        #expect(again.days.map(\.missionsCompleted).reduce(0, +) == 3)
        let research = VisitNumbers.researchEvents(all[0]).map(\.event)
        #expect(research.filter { $0 == "mission-completed" }.count == 3 && research.filter { $0 == "mission-uncompleted" } == ["mission-uncompleted"])

        var undone = histories
        undone[0].events.append(Self.event(.taskUndone, "a", "2", 30))
        let back = VisitNumbers.compute(venue: venue, histories: undone)
        #expect(back.missions[0].completed == 1 && back.days.map(\.missionsCompleted).reduce(0, +) == 2)
    }

    @Test("The research export has one line per photo: a photo hidden and restored by staff is added once")
    func restoredPhotoOnce() {
        func added(_ photoId: String, at seconds: Double) -> VisitNumbers.History.Event {
            .init(kind: .photoAdded, missionId: "a", taskId: "1", at: Date(timeIntervalSince1970: 1_000 + seconds), photoId: photoId)
        }
        let history = VisitNumbers.History(
            groupId: "g", startedAt: Date(timeIntervalSince1970: 1_000),
            events: [added("p1", at: 10), added("p2", at: 20), added("p1", at: 30), added("p2", at: 40), added("p3", at: 50)]
        )
        let photos = VisitNumbers.researchEvents(history).filter { $0.event == "photo-added" }
        #expect(photos.map(\.at.timeIntervalSince1970) == [1_010, 1_020, 1_050], "each photo at its first adding")
    }
}
