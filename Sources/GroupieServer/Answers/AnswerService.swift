import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import Hummingbird

/// Members' answers to questions and the codes they found. The store decides each attempt by
/// `AnswerRules` and commits it with its events; this publishes them and, when a mission with
/// photo tasks is complete, has its collage made.
struct AnswerService: Sendable {
    let database: any GroupieStore
    let catalog: VenueCatalog
    let committed: Committed
    let guesses: GuessLimits
    let clock: @Sendable () -> Date

    /// Whether the attempt was right, with the task's fact (in `language`) when it was.
    struct Outcome: Sendable {
        var right: Bool
        var fact: String?
    }

    func answer(_ given: AnswerRules.Given, to task: GroupProgress.TaskKey, by player: Player, in group: Group) async throws -> Outcome {
        let venue = catalog.venue(id: group.venueId)?.venue
        let now = clock()
        let events = try await guesses.guessing(task, by: player, in: group, now: now) {
            let events = try await database.answerTask(groupId: group.id, task: task, given: given, by: player, venue: venue, now: now)
            return (events, right: events.contains { $0.kind == .taskDone })
        }
        committed.publish(events)
        let right = events.contains { $0.kind == .taskDone }
        let fact = right ? venue?.mission(id: task.missionId)?.task(id: task.taskId)?.fact.map { text($0, venue: venue, player: player) } : nil
        return Outcome(right: right, fact: fact)
    }

    /// The group's attempts, the facts of its tasks answered right, and when each started
    /// time-limited mission's time is over.
    func answers(of group: Group, seenBy player: Player) async throws -> AnswersDocument {
        let attempts = try await database.taskAnswers(groupId: group.id)
        guard let venue = catalog.venue(id: group.venueId)?.venue else { return AnswersDocument(answers: attempts.map(AnswerDocument.init), facts: [], deadlines: []) }
        let taskPhotos = try await database.taskPhotos(groupId: group.id)
        var facts: [FactDocument] = []
        var deadlines: [DeadlineDocument] = []
        for mission in venue.missions {
            for task in mission.tasks where task.kind != .photo && taskPhotos.answered.contains(.init(missionId: mission.id, taskId: task.id)) {
                if let fact = task.fact { facts.append(FactDocument(missionId: mission.id, taskId: task.id, fact: text(fact, venue: venue, player: player))) }
            }
            if let deadline = AnswerRules.deadline(of: mission, photos: taskPhotos, attempts: attempts) {
                deadlines.append(DeadlineDocument(missionId: mission.id, endsAt: deadline))
            }
        }
        return AnswersDocument(answers: attempts.map(AnswerDocument.init), facts: facts, deadlines: deadlines)
    }

    private func text(_ value: LocalizedText, venue: Venue?, player: Player) -> String {
        let fallback = venue?.defaultLanguage ?? "en"
        let language = LanguageNegotiation.choose(explicit: player.language, acceptLanguage: nil, offered: venue?.languages ?? [fallback])
        return value.resolved(language: language, fallback: fallback)
    }
}

struct AnswerRequest: StrictRequestBody {
    static let fields: Set<String> = ["choice", "text"]
    /// The number of the chosen choice, from 1.
    var choice: Int?
    /// A short answer or a code, as typed or scanned.
    var text: String?
}

struct AnswerOutcome: ResponseEncodable, Sendable {
    var right: Bool
    var fact: String?
}

struct AnswerDocument: Encodable, Sendable {
    var missionId: String
    var taskId: String
    var playerId: String?
    var name: String
    var answer: String
    var right: Bool
    var answeredAt: Date

    init(_ answer: TaskAnswer) {
        missionId = answer.task.missionId
        taskId = answer.task.taskId
        playerId = answer.playerId
        name = answer.name
        self.answer = answer.answer
        right = answer.right
        answeredAt = answer.answeredAt
    }
}

struct FactDocument: Encodable, Sendable {
    var missionId: String
    var taskId: String
    var fact: String
}

struct DeadlineDocument: Encodable, Sendable {
    var missionId: String
    var endsAt: Date
}

struct AnswersDocument: ResponseEncodable, Sendable {
    var answers: [AnswerDocument]
    var facts: [FactDocument]
    var deadlines: [DeadlineDocument]
}
