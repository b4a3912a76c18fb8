import Foundation

/// One attempt of a group's member at a question or a code, right or wrong: every attempt is
/// kept, and the group sees them all.
public struct TaskAnswer: Sendable, Hashable {
    public var task: GroupProgress.TaskKey
    /// Nil once the member was erased; the attempt stays, so that a done task stays done.
    public var playerId: String?
    public var name: String
    /// The typed text, or the number of the choice from 1.
    public var answer: String
    public var right: Bool
    public var answeredAt: Date

    public init(task: GroupProgress.TaskKey, playerId: String?, name: String, answer: String, right: Bool, answeredAt: Date) {
        self.task = task
        self.playerId = playerId
        self.name = name
        self.answer = answer
        self.right = right
        self.answeredAt = answeredAt
    }
}

/// What a member's answer to a question, or a code they found, does to their group.
///
/// The rule: any member may answer a question or type a code of an unlocked mission, as often
/// as they like until one attempt is right; every attempt is stored and told to the group
/// (`task-answered`), and the first right one makes the task done (`task-done`, then
/// `mission-completed` when it was the mission's last). A done task takes no more attempts,
/// and a group keeps at most `maxAttempts` of one task: the guess limits make a class wait
/// long before that, and the cap bounds what a group's answers and events can grow to.
/// In a mission with a `time_limit:`, the time runs from the group's first photo or attempt
/// for one of its tasks; after it, attempts are refused.
public enum AnswerRules {
    /// What a member gives: the index of a choice (from 0), or a typed text (a short answer or a code).
    public enum Given: Sendable, Hashable {
        case choice(Int)
        case text(String)
    }

    public enum Refusal: Error, Sendable, Equatable {
        /// The venue has no such mission or task (or is gone).
        case unknownTask
        /// The task is done with a photo.
        case photoTask
        /// A mission whose `after` missions the group has not all completed.
        case missionLocked(missionId: String)
        /// The task was already answered right or its code found.
        case alreadyDone
        /// The mission's time limit is over for the group.
        case timeUp(missionId: String)
        /// A choice for a question to type, or a text for a multiple-choice one.
        case wrongKindOfAnswer
        /// No choice has this index.
        case noSuchChoice
        /// An empty text, or one longer than `maxLength`.
        case unusableText
        /// The group has stored `maxAttempts` attempts at the task.
        case attemptsUsedUp
    }

    /// The longest text an attempt may be.
    public static let maxLength = 200

    /// The most attempts a group keeps of one task. At the guess limits (24 wrong attempts a
    /// quarter of an hour per group) a group reaches it after half an hour of guessing; a class
    /// that thinks never does.
    public static let maxAttempts = 50

    public struct Change: Sendable {
        /// The attempt to store.
        public var answer: TaskAnswer
        /// `task-answered`, then the task and mission events a right attempt brings.
        public var events: [GroupEventPayload]
    }

    /// The change `given` by `player` makes to `task` of a group whose task photos (tasks
    /// answered right, and when the group first answered each mission) are `before`, and which
    /// has stored `attempts` attempts at the task so far.
    public static func answer(
        _ given: Given, to task: GroupProgress.TaskKey, by player: Player, before: TaskPhotos, attempts: Int, venue: Venue?, now: Date
    ) throws(Refusal) -> Change {
        guard let venue, let mission = venue.mission(id: task.missionId), let missionTask = mission.task(id: task.taskId) else {
            throw .unknownTask
        }
        // A photo task takes no answer, done or not: said before anything about its progress.
        if case .photo = missionTask.kind { throw .photoTask }
        let old = GroupProgress(venue: venue, doneTasks: before.done)
        guard old.mission(mission.id)?.isUnlocked == true else { throw .missionLocked(missionId: mission.id) }
        guard !before.done.contains(task) else { throw .alreadyDone }
        if let deadline = deadline(of: mission, photos: before, attempts: []), now > deadline { throw .timeUp(missionId: mission.id) }
        let (answer, right) = try judge(given, kind: missionTask.kind)
        guard attempts < maxAttempts else { throw .attemptsUsedUp }
        var events: [GroupEventPayload] = [.taskAnswered(task, playerId: player.id, name: player.name, answer: answer, right: right)]
        if right {
            var after = before
            after.answered.insert(task)
            events += PhotoRules.progressEvents(before: old, after: GroupProgress(venue: venue, doneTasks: after.done))
        }
        return Change(
            answer: TaskAnswer(task: task, playerId: player.id, name: player.name, answer: answer, right: right, answeredAt: now), events: events
        )
    }

    /// The answer as stored and whether it is right.
    static func judge(_ given: Given, kind: TaskKind) throws(Refusal) -> (String, Bool) {
        switch (kind, given) {
        case (.photo, _):
            throw .photoTask
        case (.question(let question), .choice(let index)):
            guard question.isMultipleChoice else { throw .wrongKindOfAnswer }
            guard question.choices.indices.contains(index) else { throw .noSuchChoice }
            return (String(index + 1), question.right.contains(index))
        case (.question(let question), .text(let text)):
            guard !question.isMultipleChoice else { throw .wrongKindOfAnswer }
            let typed = try usable(text)
            return (typed, AnswerText.matches(typed, accepted: question.accepted))
        case (.code(let code), .text(let text)):
            let typed = try usable(text)
            return (typed, code.matches(typed))
        case (.code, .choice):
            throw .wrongKindOfAnswer
        }
    }

    /// A typed text as stored: trimmed, 1 to `maxLength` characters, and no control character
    /// (a NUL, which PostgreSQL cannot store and SQLite would, among them): refused alike on
    /// every backend, before anything is stored.
    private static func usable(_ text: String) throws(Refusal) -> String {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.count <= maxLength else { throw .unusableText }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { throw .unusableText }
        return trimmed
    }

    /// When a time-limited mission's time is over for a group: its limit after the group's
    /// first photo or attempt for one of its tasks. Nil without a limit, or before any start.
    public static func deadline(of mission: Mission, photos: TaskPhotos, attempts: [TaskAnswer]) -> Date? {
        guard let limit = mission.timeLimit, let start = start(of: mission.id, photos: photos, attempts: attempts) else { return nil }
        return start.addingTimeInterval(TimeInterval(limit * 60))
    }

    /// The group's first photo or attempt for a task of the mission: the start stored with it
    /// (`TaskPhotos.missionStarts`), or the earliest of the photos and `attempts` when none was.
    public static func start(of missionId: String, photos: TaskPhotos, attempts: [TaskAnswer]) -> Date? {
        let photoTimes = photos.photos.filter { $0.key.missionId == missionId }.flatMap(\.value).map(\.createdAt)
        let answerTimes = attempts.filter { $0.task.missionId == missionId }.map(\.answeredAt) + [photos.missionStarts[missionId]].compactMap { $0 }
        return (photoTimes + answerTimes).min()
    }
}
