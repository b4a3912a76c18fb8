import Foundation
import GroupieCore
import Testing

@Suite("Points and badges")
struct PointsTests {
    /// `a` (tasks 1, 2), then `b` (task 1).
    let venue = Venue(
        id: "v", name: .plain("V"), languages: ["en"], description: nil, timeZone: "UTC", theme: Theme(color: "#000000", logo: nil),
        rules: VenueRules(),
        missions: [
            Mission(id: "a", title: .plain("A"), icon: "i.svg", tasks: [MissionTask(id: "1", prompt: .plain("p")), MissionTask(id: "2", prompt: .plain("p"))]),
            Mission(id: "b", title: .plain("B"), icon: "i.svg", tasks: [MissionTask(id: "1", prompt: .plain("p"))]),
        ]
    )
    let rules = PointsRules(task: 10, mission: 50, badges: [.allMissions, .firstPhoto, .differentMembers])

    func photo(_ id: String, _ mission: String, _ task: String, by player: String) -> Photo {
        Photo(
            id: id, groupId: "g", photographerId: player, photographerName: player, missionId: mission, taskId: task,
            blob: "b\(id)", format: "jpeg", width: 10, height: 10, createdAt: Date(timeIntervalSince1970: 0)
        )
    }

    func standing(_ photos: [Photo], picks: [GroupProgress.TaskKey: String] = [:]) -> Standing {
        Standing(rules: rules, venue: venue, taskPhotos: TaskPhotos(photos: photos, picks: picks))
    }

    @Test("no photo, no points and no badge")
    func nothing() {
        #expect(standing([]) == Standing(points: 0, badges: []))
    }

    @Test("each done task and each complete mission counts once; a second photo of a task adds nothing")
    func points() {
        #expect(standing([photo("x", "a", "1", by: "ada")]).points == 10)
        #expect(standing([photo("x", "a", "1", by: "ada"), photo("y", "a", "1", by: "bo")]).points == 10)
        #expect(standing([photo("x", "a", "1", by: "ada"), photo("y", "a", "2", by: "ada")]).points == 70)
        // A photo of a task the venue no longer has counts for nothing.
        #expect(standing([photo("z", "gone", "1", by: "ada")]) == Standing(points: 0, badges: []))
    }

    @Test("badges come in the venue's order, each by its rule")
    func badges() {
        #expect(standing([photo("x", "a", "1", by: "ada")]).badges == [.firstPhoto])
        // One member took both of a's tasks: not everyone helped.
        let alone = [photo("x", "a", "1", by: "ada"), photo("y", "a", "2", by: "ada"), photo("z", "b", "1", by: "ada")]
        #expect(standing(alone) == Standing(points: 130, badges: [.allMissions, .firstPhoto]))
        // A teammate's photo picked for the second task: two tasks, two members.
        let helped = alone + [photo("w", "a", "2", by: "bo")]
        #expect(standing(helped, picks: [.init(missionId: "a", taskId: "2"): "w"]).badges == [.allMissions, .firstPhoto, .differentMembers])
        // A one-task mission never earns it by itself.
        #expect(!standing([photo("z", "b", "1", by: "ada")]).badges.contains(.differentMembers))
    }

    @Test("a venue offering fewer badges gives only those")
    func fewerBadges() {
        let only = Standing(rules: PointsRules(task: 1, mission: 0, badges: [.firstPhoto]), venue: venue, taskPhotos: TaskPhotos(photos: [photo("x", "b", "1", by: "ada")], picks: [:]))
        #expect(only == Standing(points: 1, badges: [.firstPhoto]))
    }
}
