import Foundation
import GroupieCore
@testable import GroupieStorage
import GroupieTestSupport
import Testing

extension StoreContractTests {
    /// Mission `q`: a multiple-choice question, a code and a photo, with a 10-minute limit;
    /// mission `r`, unlocked by `q`, a code.
    var quizVenue: Venue {
        Venue(
            id: "v", name: .plain("V"), languages: ["en"], description: nil, timeZone: "UTC", theme: Theme(color: "#000000", logo: nil),
            rules: VenueRules(),
            missions: [
                Mission(
                    id: "q", title: .plain("Q"), icon: "i.svg",
                    tasks: [
                        MissionTask(id: "colour", prompt: .plain("?"), kind: .question(Question(choices: [.plain("White"), .plain("Gold")], right: [0]))),
                        MissionTask(id: "sticker", prompt: .plain("Find it"), kind: .code(FoundCode(code: "LION-42"))),
                        MissionTask(id: "photo", prompt: .plain("p")),
                    ],
                    timeLimit: 10
                ),
                Mission(id: "r", title: .plain("R"), icon: "i.svg", after: ["q"], tasks: [MissionTask(id: "1", prompt: .plain("p"), kind: .code(FoundCode(code: "ABCD")))]),
            ]
        )
    }

    @Test("A wrong answer is kept with its event and may be tried again; the right one makes the task done, everywhere the group's progress is read", arguments: Backend.chosen)
    func answers(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        let venue = quizVenue
        let colour = GroupProgress.TaskKey(missionId: "q", taskId: "colour")
        let wrong = try await store.answerTask(groupId: group.id, task: colour, given: .choice(1), by: ada, venue: venue, now: now)
        #expect(wrong.map(\.kind) == [.taskAnswered])
        #expect(wrong.first?.data.contains("\"right\":\"false\"") == true)
        #expect(try await store.taskPhotos(groupId: group.id).done.isEmpty)
        let right = try await store.answerTask(groupId: group.id, task: colour, given: .choice(0), by: ada, venue: venue, now: now.addingTimeInterval(1))
        #expect(right.map(\.kind) == [.taskAnswered, .taskDone])
        await #expect(throws: AnswerRules.Refusal.alreadyDone) {
            try await store.answerTask(groupId: group.id, task: colour, given: .choice(0), by: bo, venue: venue, now: self.now.addingTimeInterval(2))
        }
        // The code and the photo complete the mission, which unlocks `r`.
        let code = GroupProgress.TaskKey(missionId: "q", taskId: "sticker")
        #expect(try await store.answerTask(groupId: group.id, task: code, given: .text("lion 42"), by: bo, venue: venue, now: now.addingTimeInterval(3))
            .map(\.kind) == [.taskAnswered, .taskDone])
        let added = try await store.addPhoto(photo(group, by: bo, "q", "photo"), venue: venue, now: now.addingTimeInterval(4))
        #expect(added.events.map(\.kind) == [.photoAdded, .taskDone, .missionCompleted])
        let attempts = try await store.taskAnswers(groupId: group.id)
        #expect(attempts.map(\.answer) == ["2", "1", "lion 42"])
        #expect(attempts.map(\.right) == [false, true, true])
        #expect(attempts.map(\.name) == ["Ada", "Ada", "Bo"])
        let done: Set<GroupProgress.TaskKey> = [colour, code, .init(missionId: "q", taskId: "photo")]
        #expect(try await store.taskPhotos(groupId: group.id).done == done)
        #expect(try await store.groupContents(group).taskPhotos.done == done)
        #expect(try await store.playingGroupContents(venueId: "v", limit: 10).first?.taskPhotos.done == done)
        #expect(try await store.collageSubject(groupId: group.id)?.taskPhotos.answered == [colour, code])
        #expect(try await store.answerTask(groupId: group.id, task: .init(missionId: "r", taskId: "1"), given: .text("abcd"), by: ada, venue: venue, now: now.addingTimeInterval(5))
            .map(\.kind) == [.taskAnswered, .taskDone, .missionCompleted])
        let venueAnswers = try await store.venueAnswers(venueId: "v")
        #expect(venueAnswers.map(\.groupId) == Array(repeating: group.id, count: 4))
        #expect(venueAnswers.map(\.answer.answer) == ["2", "1", "lion 42", "abcd"])
        #expect(try await store.venueAnswers(venueId: "elsewhere").isEmpty)

        // Erased, Ada's typed answers leave the attempts and the events; her right one still counts.
        _ = try await store.erasePlayer(id: ada.id, now: now.addingTimeInterval(6)) { _ in venue }
        let kept = try await store.taskAnswers(groupId: group.id)
        #expect(kept.map(\.answer) == ["", "", "lion 42", ""])
        #expect(kept.map(\.right) == [false, true, true, true])
        #expect(try await store.taskPhotos(groupId: group.id).done.isSuperset(of: done), "answered right stays done")
        let told = try await store.events(groupId: group.id, after: 0, limit: 100).filter { $0.kind == .taskAnswered }.map(\.data)
        #expect(told.count == 4 && !told.contains { $0.contains("\"answer\":\"2\"") || $0.contains("abcd") || $0.contains("Ada") }, "\(told)")
        #expect(told.contains { $0.contains("lion 42") }, "Bo's own answer stays")
    }

    @Test("Answers are refused after the mission's time, for a locked mission, and from outsiders; a refusal stores nothing", arguments: Backend.chosen)
    func answerRefusals(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, _, group) = try await pair(in: store)
        let venue = quizVenue
        let colour = GroupProgress.TaskKey(missionId: "q", taskId: "colour")
        _ = try await store.answerTask(groupId: group.id, task: colour, given: .choice(1), by: ada, venue: venue, now: now)
        await #expect(throws: AnswerRules.Refusal.timeUp(missionId: "q")) {
            try await store.answerTask(groupId: group.id, task: colour, given: .choice(0), by: ada, venue: venue, now: self.now.addingTimeInterval(601))
        }
        await #expect(throws: AnswerRules.Refusal.missionLocked(missionId: "r")) {
            try await store.answerTask(groupId: group.id, task: .init(missionId: "r", taskId: "1"), given: .text("ABCD"), by: ada, venue: venue, now: self.now)
        }
        let outsider = try await player("Cy", in: store)
        await #expect(throws: MembershipError.groupNotFound) {
            try await store.answerTask(groupId: group.id, task: colour, given: .choice(0), by: outsider, venue: venue, now: self.now)
        }
        #expect(try await store.taskAnswers(groupId: group.id).count == 1)
        #expect(try await store.taskPhotos(groupId: group.id).done.isEmpty)
        // A photo for the timed mission is refused too once its time is over, in the photo's transaction.
        await #expect(throws: AnswerRules.Refusal.timeUp(missionId: "q")) {
            try await store.addPhoto(self.photo(group, by: ada, "q", "photo"), venue: venue, now: self.now.addingTimeInterval(601))
        }
        #expect(try await store.photos(groupId: group.id, missionId: nil, before: nil, limit: 10).isEmpty, "the late photo is not stored")
        let inTime = try await store.addPhoto(photo(group, by: ada, "q", "photo"), venue: venue, now: now.addingTimeInterval(600))
        #expect(inTime.created)
    }

    @Test("A group keeps at most the cap of attempts at one task, also when the last ones are sent at once; the rest are refused and stored nowhere", arguments: Backend.chosen)
    func attemptCap(_ backend: Backend) async throws {
        let store = try await backend.open()
        let (ada, bo, group) = try await pair(in: store)
        let venue = quizVenue
        let code = GroupProgress.TaskKey(missionId: "q", taskId: "sticker")
        for index in 0..<(AnswerRules.maxAttempts - 4) {
            _ = try await store.answerTask(groupId: group.id, task: code, given: .text("guess \(index)"), by: ada, venue: venue, now: now)
        }
        // Twelve more at once, from both members: four fit, whoever sends them.
        let outcomes = await withTaskGroup(of: Bool.self) { tasks in
            for index in 0..<12 {
                tasks.addTask {
                    do {
                        _ = try await store.answerTask(
                            groupId: group.id, task: code, given: .text("race \(index)"), by: index.isMultiple(of: 2) ? ada : bo, venue: venue, now: self.now
                        )
                        return true
                    } catch AnswerRules.Refusal.attemptsUsedUp {
                        return false
                    } catch {
                        Issue.record("unexpected \(error)")
                        return false
                    }
                }
            }
            return await tasks.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 }.count == 4)
        await #expect(throws: AnswerRules.Refusal.attemptsUsedUp, "the right code too") {
            try await store.answerTask(groupId: group.id, task: code, given: .text("LION-42"), by: bo, venue: venue, now: self.now)
        }
        #expect(try await store.taskAnswers(groupId: group.id).count == AnswerRules.maxAttempts)
        #expect(try await store.events(groupId: group.id, after: 0, limit: 500).filter { $0.kind == .taskAnswered }.count == AnswerRules.maxAttempts)
        #expect(try await store.taskPhotos(groupId: group.id).done.isEmpty)
        // The question beside it is its own count.
        #expect(try await store.answerTask(groupId: group.id, task: .init(missionId: "q", taskId: "colour"), given: .choice(0), by: bo, venue: venue, now: now)
            .map(\.kind) == [.taskAnswered, .taskDone])
    }
}
