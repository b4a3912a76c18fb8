import Foundation
import GroupieCore
import Testing

@Suite("Answer rules")
struct AnswerRulesTests {
    /// Mission `q` (a multiple-choice question, a question to type, a code, a photo) with a
    /// 10-minute limit, then `r` (one code) unlocked by `q`.
    let venue = Venue(
        id: "v", name: .plain("V"), languages: ["en"], description: nil, timeZone: "UTC", theme: Theme(color: "#000000", logo: nil),
        rules: VenueRules(),
        missions: [
            Mission(
                id: "q", title: .plain("Q"), icon: "i.svg",
                tasks: [
                    MissionTask(
                        id: "colour", prompt: .plain("What colour?"),
                        kind: .question(Question(choices: [.plain("White"), .plain("Gold"), .plain("Blue")], right: [0])), fact: .plain("White.")
                    ),
                    MissionTask(id: "whale", prompt: .plain("Which animal?"), kind: .question(Question(accepted: ["Blåval", "blue whale"]))),
                    MissionTask(id: "sticker", prompt: .plain("Find the sticker"), kind: .code(FoundCode(code: "LION-42"))),
                    MissionTask(id: "photo", prompt: .plain("Photograph it")),
                ],
                timeLimit: 10
            ),
            Mission(id: "r", title: .plain("R"), icon: "i.svg", after: ["q"], tasks: [MissionTask(id: "1", prompt: .plain("p"), kind: .code(FoundCode(code: "ABCD")))]),
        ]
    )
    let ada = Player(id: "p1", name: "Ada", language: nil, createdAt: Date(timeIntervalSince1970: 0))
    let noon = Date(timeIntervalSince1970: 12 * 3600)

    func key(_ mission: String, _ task: String) -> GroupProgress.TaskKey { .init(missionId: mission, taskId: task) }

    func answer(_ given: AnswerRules.Given, _ task: GroupProgress.TaskKey, answered: Set<GroupProgress.TaskKey> = [], photos: [Photo] = [],
                attempts: [TaskAnswer] = [], stored: Int = 0, at date: Date? = nil) throws(AnswerRules.Refusal) -> AnswerRules.Change {
        // The earlier attempts reach the rule as the task photos carry them: each mission's first.
        let missionStarts = Dictionary(attempts.map { ($0.task.missionId, $0.answeredAt) }, uniquingKeysWith: min)
        return try AnswerRules.answer(
            given, to: task, by: ada, before: TaskPhotos(photos: photos, picks: [:], answered: answered, missionStarts: missionStarts), attempts: stored, venue: venue,
            now: date ?? noon
        )
    }

    @Test("a group's attempts at one task stop at the cap, the right one too; another task still takes them")
    func attemptCap() throws {
        let last = try answer(.choice(1), key("q", "colour"), stored: AnswerRules.maxAttempts - 1)
        #expect(last.answer.answer == "2")
        #expect(throws: AnswerRules.Refusal.attemptsUsedUp) { try answer(.choice(1), key("q", "colour"), stored: AnswerRules.maxAttempts) }
        #expect(throws: AnswerRules.Refusal.attemptsUsedUp) { try answer(.choice(0), key("q", "colour"), stored: AnswerRules.maxAttempts) }
        #expect(throws: AnswerRules.Refusal.alreadyDone, "a done task says so, whatever its count") {
            try answer(.choice(0), key("q", "colour"), answered: [key("q", "colour")], stored: AnswerRules.maxAttempts)
        }
    }

    @Test("a wrong choice is stored and told, and the task stays open; the right one makes it done")
    func choices() throws {
        let wrong = try answer(.choice(1), key("q", "colour"))
        #expect(wrong.answer == TaskAnswer(task: key("q", "colour"), playerId: "p1", name: "Ada", answer: "2", right: false, answeredAt: noon))
        #expect(wrong.events == [.taskAnswered(key("q", "colour"), playerId: "p1", name: "Ada", answer: "2", right: false)])
        let right = try answer(.choice(0), key("q", "colour"), attempts: [wrong.answer])
        #expect(right.events == [.taskAnswered(key("q", "colour"), playerId: "p1", name: "Ada", answer: "1", right: true), .taskDone(key("q", "colour"))])
    }

    @Test("a short answer is compared without case, accents and spaces")
    func shortAnswer() throws {
        for typed in ["blaval", "BLÅVAL", "Blue  Whale", " bluewhale! "] {
            #expect(try answer(.text(typed), key("q", "whale")).answer.right, "\(typed)")
        }
        #expect(try !answer(.text("shark"), key("q", "whale")).answer.right)
        #expect(AnswerText.normalized("Bla val") == AnswerText.normalized("Blåval"))
    }

    @Test("a code matches whatever its case, spaces and dashes")
    func code() throws {
        #expect(try answer(.text("lion 42"), key("q", "sticker")).answer.right)
        #expect(try answer(.text("LION-42"), key("q", "sticker")).answer.right)
        #expect(try !answer(.text("LION-43"), key("q", "sticker")).answer.right)
        #expect(FoundCode.isValid("WHALE-42") && !FoundCode.isValid("AB") && !FoundCode.isValid("-ABCD") && !FoundCode.isValid("ÅÄÖÅ"))
    }

    @Test("the last task done completes the mission: answered, task done, mission completed")
    func completes() throws {
        let done: Set = [key("q", "colour"), key("q", "whale")]
        let photo = Photo(
            id: "x", groupId: "g", photographerId: "p1", photographerName: "Ada", missionId: "q", taskId: "photo", blob: "b", format: "jpeg",
            width: 100, height: 100, createdAt: noon
        )
        let change = try answer(.text("LION42"), key("q", "sticker"), answered: done, photos: [photo])
        #expect(change.events == [
            .taskAnswered(key("q", "sticker"), playerId: "p1", name: "Ada", answer: "LION42", right: true), .taskDone(key("q", "sticker")),
            .missionCompleted(missionId: "q"),
        ])
    }

    @Test("a done task, a photo task, a locked mission, an unknown task and unusable answers are refused")
    func refusals() {
        #expect(throws: AnswerRules.Refusal.alreadyDone) { try answer(.choice(0), key("q", "colour"), answered: [key("q", "colour")]) }
        #expect(throws: AnswerRules.Refusal.photoTask) { try answer(.text("x"), key("q", "photo")) }
        let taken = Photo(
            id: "x", groupId: "g", photographerId: "p1", photographerName: "Ada", missionId: "q", taskId: "photo", blob: "b", format: "jpeg",
            width: 100, height: 100, createdAt: noon
        )
        #expect(throws: AnswerRules.Refusal.photoTask, "a photo task done is still a photo task") { try answer(.text("x"), key("q", "photo"), photos: [taken]) }
        #expect(throws: AnswerRules.Refusal.missionLocked(missionId: "r")) { try answer(.text("ABCD"), key("r", "1")) }
        #expect(throws: AnswerRules.Refusal.unknownTask) { try answer(.text("x"), key("q", "nine")) }
        #expect(throws: AnswerRules.Refusal.noSuchChoice) { try answer(.choice(3), key("q", "colour")) }
        #expect(throws: AnswerRules.Refusal.wrongKindOfAnswer) { try answer(.text("White"), key("q", "colour")) }
        #expect(throws: AnswerRules.Refusal.wrongKindOfAnswer) { try answer(.choice(0), key("q", "sticker")) }
        #expect(throws: AnswerRules.Refusal.unusableText) { try answer(.text("   "), key("q", "whale")) }
        #expect(throws: AnswerRules.Refusal.unusableText) { try answer(.text(String(repeating: "a", count: 201)), key("q", "whale")) }
        // A NUL or another control character: refused in Core, so that no backend stores it and none fails on it.
        for control in ["a\u{0}b", "a\u{7}b", "a\u{1B}[31mb"] {
            #expect(throws: AnswerRules.Refusal.unusableText) { try answer(.text(control), key("q", "whale")) }
        }
    }

    @Test("the time limit runs from the group's first attempt or photo for the mission; after it attempts are refused")
    func timeLimit() throws {
        let first = TaskAnswer(task: key("q", "colour"), playerId: "p1", name: "Ada", answer: "2", right: false, answeredAt: noon)
        #expect(try answer(.choice(0), key("q", "colour"), attempts: [first], at: noon.addingTimeInterval(600)).answer.right)
        #expect(throws: AnswerRules.Refusal.timeUp(missionId: "q")) {
            try answer(.choice(0), key("q", "colour"), attempts: [first], at: noon.addingTimeInterval(601))
        }
        let mission = try #require(venue.mission(id: "q"))
        #expect(AnswerRules.deadline(of: mission, photos: TaskPhotos(photos: [], picks: [:]), attempts: []) == nil)
        #expect(AnswerRules.deadline(of: mission, photos: TaskPhotos(photos: [], picks: [:]), attempts: [first]) == noon.addingTimeInterval(600))
    }

    @Test("a photo for a timed mission's task is refused once the group's time for the mission is over, from its first attempt or photo; untimed and locked missions as before")
    func photoInTime() throws {
        let started = TaskPhotos(photos: [], picks: [:], missionStarts: ["q": noon])
        try PhotoRules.requireAdmissible("q", now: noon.addingTimeInterval(600), before: started, venue: venue)
        try PhotoRules.requireAdmissible("q", now: noon.addingTimeInterval(6000), before: TaskPhotos(photos: [], picks: [:]), venue: venue)
        #expect(throws: AnswerRules.Refusal.timeUp(missionId: "q")) {
            try PhotoRules.requireAdmissible("q", now: noon.addingTimeInterval(601), before: started, venue: venue)
        }
        // The group's first photo of the mission starts its time too, the earlier of the two.
        let photo = Photo(
            id: "x", groupId: "g", photographerId: "p1", photographerName: "Ada", missionId: "q", taskId: "photo",
            blob: "x", format: "jpeg", width: 10, height: 10, createdAt: noon.addingTimeInterval(-300)
        )
        #expect(throws: AnswerRules.Refusal.timeUp(missionId: "q")) {
            try PhotoRules.requireAdmissible("q", now: noon.addingTimeInterval(301), before: TaskPhotos(photos: [photo], picks: [:], missionStarts: ["q": noon]), venue: venue)
        }
        try PhotoRules.requireAdmissible(nil, now: noon.addingTimeInterval(6000), before: started, venue: venue)
        #expect(throws: PhotoRules.Refusal.missionLocked(missionId: "r")) {
            try PhotoRules.requireAdmissible("r", now: noon, before: started, venue: venue)
        }
    }

    @Test("the numbers count, per question and code, the groups that tried it, the groups right and every attempt")
    func numbers() {
        func attempt(_ task: String, right: Bool) -> TaskAnswer {
            TaskAnswer(task: key("q", task), playerId: "p1", name: "Ada", answer: "x", right: right, answeredAt: noon)
        }
        let numbers = AnswerNumbers(venue: venue, attempts: [
            ("g1", attempt("colour", right: false)), ("g1", attempt("colour", right: true)), ("g2", attempt("colour", right: false)),
            ("g2", attempt("sticker", right: true)),
        ])
        #expect(numbers.rows.map(\.taskId) == ["colour", "whale", "sticker", "1"])
        #expect(numbers.rows.map(\.kind) == ["question", "question", "code", "code"])
        #expect(numbers.rows.map(\.groupsAnswered) == [2, 0, 1, 0])
        #expect(numbers.rows.map(\.groupsRight) == [1, 0, 1, 0])
        #expect(numbers.rows.map(\.attempts) == [3, 0, 1, 0])
    }

    @Test("a task answered right counts as done in the group's progress; a mission of answers alone completes")
    func progress() {
        let taskPhotos = TaskPhotos(photos: [], picks: [:], answered: [key("r", "1")])
        #expect(taskPhotos.done == [key("r", "1")])
        #expect(taskPhotos.chosen.isEmpty)
        #expect(venue.mission(id: "q")?.photoTaskIds == ["photo"])
    }
}
