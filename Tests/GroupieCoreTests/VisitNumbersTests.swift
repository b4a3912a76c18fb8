import Foundation
import GroupieCore
import Testing

@Suite("Visit numbers")
struct VisitNumbersTests {
    /// Mission `a` (tasks 1, 2), then `b` (task 1), at a venue in Stockholm (UTC+1 in November).
    let venue = Venue(
        id: "v", name: .plain("V"), languages: ["en"], description: nil, timeZone: "Europe/Stockholm", theme: Theme(color: "#000000", logo: nil),
        rules: VenueRules(),
        missions: [
            Mission(id: "a", title: .plain("A"), icon: "i.svg", after: [], tasks: [MissionTask(id: "1", prompt: .plain("p")), MissionTask(id: "2", prompt: .plain("p"))]),
            Mission(id: "b", title: .plain("B"), icon: "i.svg", after: ["a"], tasks: [MissionTask(id: "1", prompt: .plain("p"))]),
        ]
    )

    /// 2026-11-23 10:00 UTC, plus minutes.
    static func at(_ minutes: Double) -> Date { Date(timeIntervalSince1970: 1_795_428_000 + minutes * 60) }

    static func event(_ kind: GroupEventKind, _ mission: String? = nil, _ task: String? = nil, _ minutes: Double) -> VisitNumbers.History.Event {
        .init(kind: kind, missionId: mission, taskId: task, at: at(minutes))
    }

    /// Three groups, counted by hand:
    /// - g1 starts at 0; a/1 at 5, a/2 at 15 (mission a done in 10 min), b/1 at 20 (b done in 0),
    ///   and a free photo: 4 photos.
    /// - g2 starts at 60; a/1 at 70 and stops: a started, not completed; a/2 skipped. 1 photo.
    /// - g3 starts at 22:55 UTC, 23:55 in Stockholm; a/2 at 23:05 UTC (the next day there),
    ///   a/1 at 23:35 UTC: a done in 30 min, on the 24th. 2 photos.
    var histories: [VisitNumbers.History] {
        [
            .init(groupId: "g1", startedAt: Self.at(0), events: [
                Self.event(.memberJoined, nil, nil, 1),
                Self.event(.photoAdded, "a", "1", 5), Self.event(.taskDone, "a", "1", 5),
                Self.event(.photoAdded, nil, nil, 6),
                Self.event(.photoAdded, "a", "2", 15), Self.event(.taskDone, "a", "2", 15), Self.event(.missionCompleted, "a", nil, 15),
                Self.event(.photoAdded, "b", "1", 20), Self.event(.taskDone, "b", "1", 20), Self.event(.missionCompleted, "b", nil, 20),
            ]),
            .init(groupId: "g2", startedAt: Self.at(60), events: [
                Self.event(.photoAdded, "a", "1", 70), Self.event(.taskDone, "a", "1", 70),
            ]),
            .init(groupId: "g3", startedAt: Self.at(775), events: [
                Self.event(.photoAdded, "a", "2", 785), Self.event(.taskDone, "a", "2", 785),
                Self.event(.photoAdded, "a", "1", 815), Self.event(.taskDone, "a", "1", 815), Self.event(.missionCompleted, "a", nil, 815),
            ]),
        ]
    }

    @Test("days, missions, drop-off, medians, skipped tasks and photos per group match the hand count")
    func handCounted() {
        let numbers = VisitNumbers.compute(venue: venue, histories: histories)
        #expect(numbers.groups == 3)
        #expect(numbers.days.map(\.date) == ["2026-11-23", "2026-11-24"])
        #expect(numbers.days.map(\.groupsStarted) == [3, 0])
        #expect(numbers.days.map(\.missionsCompleted) == [2, 1])

        let a = numbers.missions[0], b = numbers.missions[1]
        #expect((a.missionId, a.started, a.completed, a.dropOff) == ("a", 3, 2, 1))
        #expect(a.medianSeconds == Double(20 * 60), "median of 10 and 30 minutes")
        #expect((b.missionId, b.started, b.completed, b.dropOff) == ("b", 1, 1, 0))
        #expect(b.medianSeconds == 0)

        let tasks = Dictionary(uniqueKeysWithValues: numbers.tasks.map { ("\($0.missionId)/\($0.taskId)", $0) })
        #expect(tasks["a/1"]?.done == 3 && tasks["a/1"]?.skipped == 0)
        #expect(tasks["a/1"]?.medianSeconds == 0, "0 (g1), 0 (g2), 30 min (g3)")
        #expect(tasks["a/2"]?.done == 2 && tasks["a/2"]?.skipped == 1)
        #expect(tasks["a/2"]?.medianSeconds == Double(5 * 60), "10 min (g1), 0 (g3)")
        #expect(tasks["b/1"]?.done == 1 && tasks["b/1"]?.skipped == 0)
        #expect(numbers.mostSkipped.map { "\($0.missionId)/\($0.taskId)" } == ["a/2"])

        #expect(numbers.medianPhotosPerGroup == 2)
        #expect(numbers.meanPhotosPerGroup == 7.0 / 3)
    }

    @Test("no groups: empty tables and no medians")
    func empty() {
        let numbers = VisitNumbers.compute(venue: venue, histories: [])
        #expect(numbers.days.isEmpty && numbers.groups == 0)
        #expect(numbers.missions.map(\.started) == [0, 0] && numbers.missions.allSatisfy { $0.medianSeconds == nil })
        #expect(numbers.medianPhotosPerGroup == nil && numbers.meanPhotosPerGroup == nil)
        #expect(VisitNumbers.median([3, 1, 2]) == 2 && VisitNumbers.median([4, 1]) == 2.5)
    }

    @Test("Days from quarter hours follow the venue's clock across summer time; a histogram's median is its values' median")
    func daysAndHistograms() {
        var tally = VisitNumbers.Tally()
        // 2027-03-27 22:30 UTC is 23:30 in Stockholm (UTC+1); 2027-03-28 22:30 UTC is 00:30 on the
        // 29th (UTC+2 since 01:00 UTC that day); 2024-02-29 12:00 UTC, a leap day.
        for (seconds, count) in [(1_806_186_600, 2), (1_806_273_000, 1), (1_709_208_000, 4)] {
            tally.groupsStarted[VisitNumbers.Tally.quarter(Date(timeIntervalSince1970: Double(seconds))), default: 0] += count
        }
        tally.photosPerGroup = [0: 7]
        let days = VisitNumbers(venue: venue, tally: tally).days
        #expect(days.map(\.date) == ["2024-02-29", "2027-03-27", "2027-03-29"])
        #expect(days.map(\.groupsStarted) == [4, 2, 1])
        let histograms: [[Int: Int]] = [[5: 1], [1: 2, 9: 1], [1: 1, 4: 1], [3: 2, 10: 2, 0: 0], [-1: 3]]
        for histogram in histograms {
            let spelled = histogram.flatMap { Array(repeating: Double($0.key), count: $0.value) }
            #expect(VisitNumbers.median(of: histogram) == VisitNumbers.median(spelled), "\(histogram)")
        }
    }
}
