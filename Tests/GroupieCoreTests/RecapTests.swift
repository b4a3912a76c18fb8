import Foundation
import GroupieCore
import Testing

@Suite("Recap")
struct RecapTests {
    /// Mission `a` (tasks 1, 2, a fact in English and Swedish), then `b` (task 1, no fact), then `c` (task 1).
    let venue = Venue(
        id: "v", name: .plain("V"), languages: ["en", "sv"], description: nil, timeZone: "UTC", theme: Theme(color: "#000000", logo: nil),
        rules: VenueRules(),
        missions: [
            Mission(
                id: "a", title: .translated(["en": "Whales", "sv": "Valar"]), icon: "i.svg",
                fact: .translated(["en": "Blue whales are the largest animals.", "sv": "Blåvalen är störst."]),
                tasks: [MissionTask(id: "1", prompt: .plain("Tail")), MissionTask(id: "2", prompt: .translated(["en": "Jaw", "sv": "Käke"]))]
            ),
            Mission(id: "b", title: .plain("Birds"), icon: "i.svg", tasks: [MissionTask(id: "1", prompt: .plain("Wing"))]),
            Mission(id: "c", title: .plain("Cats"), icon: "i.svg", tasks: [MissionTask(id: "1", prompt: .plain("Paw"))]),
        ]
    )

    func group(closed: Bool = false, until: Double = 1_000) -> Group {
        Group(
            id: "g", venueId: "v", name: "Otters", joinCode: JoinCode(typed: "ABCDEF")!, creatorId: "p1",
            createdAt: Date(timeIntervalSince1970: 0), joinableUntil: Date(timeIntervalSince1970: until),
            closed: closed ? .init(at: Date(timeIntervalSince1970: 10), reason: "The museum closes") : nil
        )
    }

    func progress(_ photos: [Photo]) -> GroupProgress {
        GroupProgress(venue: venue, doneTasks: TaskPhotos(photos: photos, picks: [:]).done)
    }

    let all = [
        RecapTests.make("x", "a", "1", "p1", "Ada", 1), RecapTests.make("y", "a", "2", "p2", "Bo", 2),
        RecapTests.make("z", "b", "1", "p2", "Bo", 3), RecapTests.make("w", "c", "1", "p1", "Ada", 4),
    ]

    static func make(_ id: String, _ mission: String, _ task: String, _ player: String, _ name: String, _ second: Double) -> Photo {
        Photo(
            id: id, groupId: "g", photographerId: player, photographerName: name, missionId: mission, taskId: task,
            blob: "b\(id)", format: "jpeg", width: 100, height: 100, createdAt: Date(timeIntervalSince1970: second)
        )
    }

    @Test("the visit goes on while missions are open, the group is open and its joining time runs")
    func goesOn() {
        #expect(VisitEnd.of(group(), progress: progress(Array(all.prefix(3))), now: Date(timeIntervalSince1970: 500)) == nil)
    }

    @Test("the visit is over when every mission is done, when staff closed the group, or when the joining time is over")
    func ends() {
        let now = Date(timeIntervalSince1970: 500)
        #expect(VisitEnd.of(group(), progress: progress(all), now: now) == .missionsDone)
        #expect(VisitEnd.of(group(closed: true), progress: progress([]), now: now) == .closed)
        #expect(VisitEnd.of(group(), progress: progress([]), now: Date(timeIntervalSince1970: 1_000)) == .joiningTimeOver)
        // A withdrawn venue's group, and a venue without missions, are over only by time or staff.
        #expect(VisitEnd.of(group(), progress: nil, now: now) == nil)
        let empty = Venue(id: "e", name: .plain("E"), languages: ["en"], description: nil, timeZone: "UTC", theme: venue.theme, rules: VenueRules(), missions: [])
        #expect(VisitEnd.of(group(), progress: GroupProgress(venue: empty, doneTasks: []), now: now) == nil)
    }

    @Test("a mission whose time ran out is over: the visit ends when every mission is done or over, and a mission waiting for one that is over is over too")
    func timedOut() throws {
        var timed = venue
        timed.missions[1].timeLimit = 10
        timed.missions[2].after = [timed.missions[1].id]
        // Mission `a` done; `b` started at second 3 and not finished; `c` waits for `b`.
        let photos = TaskPhotos(photos: Array(all.prefix(2)), picks: [:], missionStarts: [timed.missions[1].id: Date(timeIntervalSince1970: 3)])
        let progress = GroupProgress(venue: timed, doneTasks: photos.done)
        let inTime = Date(timeIntervalSince1970: 3 + 600), late = Date(timeIntervalSince1970: 3 + 601)
        #expect(VisitEnd.over(in: timed, photos: photos, now: inTime).isEmpty)
        #expect(VisitEnd.of(group(), progress: progress, over: VisitEnd.over(in: timed, photos: photos, now: inTime), now: Date(timeIntervalSince1970: 500)) == nil)
        let over = VisitEnd.over(in: timed, photos: photos, now: late)
        #expect(over == [timed.missions[1].id, timed.missions[2].id])
        #expect(VisitEnd.of(group(), progress: progress, over: over, now: Date(timeIntervalSince1970: 500)) == .missionsOver)
        // A mission done in time is done, not over, whatever the clock says.
        let allPhotos = TaskPhotos(photos: all, picks: [:], missionStarts: [timed.missions[1].id: Date(timeIntervalSince1970: 3)])
        #expect(VisitEnd.over(in: timed, photos: allPhotos, now: late).isEmpty)
    }

    @Test("chapters are the completed missions in the venue's order, with their facts in the language asked for")
    func chapters() {
        // `c` is done, `b` is not: the chapters skip `b` and keep the venue's order.
        let photos = [all[3], all[1], all[0]]
        let recap = Recap(venue: venue, taskPhotos: TaskPhotos(photos: photos, picks: [:]), language: "sv")
        #expect(recap.chapters.map(\.missionId) == ["a", "c"])
        #expect(recap.chapters[0].title == "Valar")
        #expect(recap.chapters[0].photoIds == ["x", "y"])
        #expect(recap.chapters[0].credits.map { "\($0.prompt): \($0.name)" } == ["Tail: Ada", "Käke: Bo"])
        #expect(recap.chapters[1].fact == nil)
        #expect(recap.facts == ["Blåvalen är störst."])
        #expect(recap.lastPhotoAt == Date(timeIntervalSince1970: 4))
    }

    @Test("who did what: the members whose photos the collages show, most tasks first, then in the order of their first photo")
    func contributions() {
        let recap = Recap(venue: venue, taskPhotos: TaskPhotos(photos: all, picks: [:]), language: "en")
        #expect(recap.contributions.map(\.name) == ["Ada", "Bo"])
        #expect(recap.contributions.map(\.tasks) == [2, 2])
        #expect(recap.contributions[0].missions == ["Whales", "Cats"])
        #expect(recap.contributions[1].missions == ["Whales", "Birds"])
        // A member's pick changes who is credited.
        let later = Self.make("v", "c", "1", "p2", "Bo", 9)
        let picked = Recap(venue: venue, taskPhotos: TaskPhotos(photos: all + [later], picks: [.init(missionId: "c", taskId: "1"): "v"]), language: "en")
        #expect(picked.contributions.map(\.name) == ["Bo", "Ada"])
        #expect(picked.contributions.map(\.tasks) == [3, 1])
        #expect(picked.chapters.last?.credits.map(\.name) == ["Bo"])
    }

    @Test("a group without photos has an empty recap")
    func empty() {
        let recap = Recap(venue: venue, taskPhotos: TaskPhotos(photos: [], picks: [:]), language: "en")
        #expect(recap.chapters.isEmpty && recap.contributions.isEmpty && recap.facts.isEmpty && recap.lastPhotoAt == nil)
    }

    @Test("a mission of photos and a question is a chapter once both are done, with the question's fact; one of questions alone is a chapter of its facts, none without")
    func mixedMissions() {
        let mixed = Venue(
            id: "v", name: .plain("V"), languages: ["en"], description: nil, timeZone: "UTC", theme: Theme(color: "#000000", logo: nil),
            rules: VenueRules(),
            missions: [
                Mission(
                    id: "m", title: .plain("Mixed"), icon: "i.svg", fact: .plain("Mission fact."),
                    tasks: [
                        MissionTask(id: "1", prompt: .plain("Tail")),
                        MissionTask(id: "q", prompt: .plain("?"), kind: .question(Question(choices: [.plain("A"), .plain("B")], right: [0])), fact: .plain("Task fact.")),
                    ]
                ),
                Mission(id: "k", title: .plain("Codes"), icon: "i.svg", tasks: [MissionTask(id: "c", prompt: .plain("Find"), kind: .code(FoundCode(code: "ABCD")))]),
                Mission(
                    id: "f", title: .plain("Facts"), icon: "i.svg",
                    tasks: [MissionTask(id: "q", prompt: .plain("?"), kind: .question(Question(choices: [.plain("A")], right: [0])), fact: .plain("Whales sing."))]
                ),
            ]
        )
        let photo = Self.make("x", "m", "1", "p1", "Ada", 1)
        #expect(Recap(venue: mixed, taskPhotos: TaskPhotos(photos: [photo], picks: [:]), language: "en").chapters.isEmpty, "the question is still open")
        let done = TaskPhotos(
            photos: [photo], picks: [:], answered: [.init(missionId: "m", taskId: "q"), .init(missionId: "k", taskId: "c"), .init(missionId: "f", taskId: "q")]
        )
        let recap = Recap(venue: mixed, taskPhotos: done, language: "en")
        #expect(recap.chapters.map(\.missionId) == ["m", "f"], "the code mission has no fact to tell")
        #expect(recap.chapters.last?.fact == "Whales sing." && recap.chapters.last?.photoIds == [] && recap.chapters.last?.credits == [])
        #expect(recap.facts == ["Mission fact. Task fact.", "Whales sing."])
        #expect(recap.chapters.first?.fact == "Mission fact. Task fact.")
        #expect(recap.chapters.first?.photoIds == ["x"])
        #expect(recap.chapters.first?.credits.map(\.name) == ["Ada"])
    }
}
