import Foundation
import GroupieCore
@testable import GroupieServer
import GroupieTestSupport
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Questions and found-it codes over HTTP: the venue document keeps the answers to itself, an
/// attempt is stored and told, a right one completes the task, and bad input is refused.
@Suite("Questions and codes")
struct AnswerRouteTests {
    static let quiz = """
          - id: quiz
            title: Quiz
            icon: icons/fish.svg
            time_limit: 15
            tasks:
              - id: colour
                kind: question
                question: { sv: Vilken färg?, en: What colour? }
                choices: [Vit, Guld]
                answer: 1
                fact: { sv: Vit., en: "White, the colour of purity." }
              - id: animal
                kind: question
                question: Which animal?
                answers: [blåval, blue whale]
              - id: sticker
                kind: code
                prompt: Find the sticker
                code: LION-42
        """

    static func server() throws -> TestServer {
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium(extraMission: quiz))
        return server
    }

    @Test("The venue document shows the kinds, choices and time limit, never the right answers nor the code")
    func venueDocument() async throws {
        try await Self.server().test { client in
            let (_, venue) = try await client.json("/api/v1/venues/aquarium?lang=en")
            let quiz = try #require((venue["missions"] as? [[String: Any]])?.first { $0["id"] as? String == "quiz" })
            #expect(quiz["timeLimit"] as? Int == 15)
            let tasks = try #require(quiz["tasks"] as? [[String: Any]])
            #expect(tasks.map { $0["kind"] as? String } == ["question", "question", "code"])
            #expect(tasks[0]["choices"] as? [String] == ["Vit", "Guld"])
            #expect(tasks[0]["prompt"] as? String == "What colour?")
            let text = String(decoding: try JSONSerialization.data(withJSONObject: venue), as: UTF8.self)
            #expect(!text.contains("LION") && !text.contains("blåval") && !text.contains("purity"))
            // What a task may say, exactly: a key added to the document is a decision, not an accident.
            #expect(tasks.map { Set($0.keys) } == Self.venueTaskKeys, "\(tasks.map { $0.keys.sorted() })")
        }
    }

    /// The keys of the quiz's three tasks (a multiple-choice question, a question to type, a
    /// code) in the venue document: never an answer, a code or a fact.
    static let venueTaskKeys: [Set<String>] = [
        ["id", "kind", "prompt", "choices", "camera", "framing"], ["id", "kind", "prompt", "camera", "framing"], ["id", "kind", "prompt", "camera", "framing"],
    ]

    @Test("The group, answers and feed documents carry exactly their keys for a quiz's tasks: never a right answer or a code")
    func documentKeys() async throws {
        try await Self.server().test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let base = "/api/v1/groups/\(group.id)/missions/quiz/tasks"
            _ = try await client.send(.post, base + "/colour/answer", json: #"{"choice": 1}"#, headers: ada.auth)
            _ = try await client.send(.post, base + "/sticker/answer", json: #"{"text": "LION-41"}"#, headers: ada.auth)
            let (_, document) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: ada.auth)
            let quiz = try #require(((document["group"] as? [String: Any])?["missions"] as? [[String: Any]])?.first { $0["id"] as? String == "quiz" })
            let tasks = try #require(quiz["tasks"] as? [[String: Any]])
            #expect(tasks.map { Set($0.keys) } == Self.groupTaskKeys, "\(tasks.map { $0.keys.sorted() })")
            let (_, answers) = try await client.send(.get, "/api/v1/groups/\(group.id)/answers", headers: ada.auth)
            #expect(Set(answers.keys) == ["answers", "facts", "deadlines"])
            let attempts = try #require(answers["answers"] as? [[String: Any]])
            #expect(attempts.map { Set($0.keys) }.allSatisfy { $0 == ["missionId", "taskId", "playerId", "name", "answer", "right", "answeredAt"] }, "\(attempts)")
            #expect((answers["facts"] as? [[String: Any]])?.allSatisfy { Set($0.keys) == ["missionId", "taskId", "fact"] } == true)
            #expect((answers["deadlines"] as? [[String: Any]])?.allSatisfy { Set($0.keys) == ["missionId", "endsAt"] } == true)
            let (_, feed) = try await client.send(.get, "/api/v1/groups/\(group.id)/feed", headers: ada.auth)
            #expect((feed["entries"] as? [Any])?.isEmpty == true, "attempts are not in the feed: \(feed)")
            let text = String(decoding: try JSONSerialization.data(withJSONObject: [document, answers, feed]), as: UTF8.self)
            #expect(!text.contains("LION-42") && !text.contains("blåval") && !text.contains("purity"), "no right answer, code or unearned fact")
        }
    }

    static let groupTaskKeys: [Set<String>] = [["id", "state"], ["id", "state"], ["id", "state"]]

    @Test("A wrong answer is told to the group; the right one makes the task done and brings its fact; the group reads every attempt")
    func answering() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            let base = "/api/v1/groups/\(group.id)/missions/quiz/tasks"
            let (wrong, missed) = try await client.send(.post, base + "/colour/answer", json: #"{"choice": 2}"#, headers: ada.auth)
            #expect(wrong.status == .ok && missed["right"] as? Bool == false && missed["fact"] == nil)
            let (_, got) = try await client.send(.post, base + "/colour/answer", json: #"{"choice": 1}"#, headers: ada.auth)
            #expect(got["right"] as? Bool == true)
            #expect((got["fact"] as? String)?.isEmpty == false)
            let (again, why) = try await client.send(.post, base + "/colour/answer", json: #"{"choice": 1}"#, headers: bo.auth)
            #expect(again.status == .conflict && why["code"] as? String == "task-answered-already")
            #expect(try await client.send(.post, base + "/animal/answer", json: #"{"text": "Blue Whale!"}"#, headers: bo.auth).1["right"] as? Bool == true)
            #expect(try await client.send(.post, base + "/sticker/answer", json: #"{"text": "lion42"}"#, headers: bo.auth).1["right"] as? Bool == true)
            let (_, document) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: bo.auth)
            let quiz = ((document["group"] as? [String: Any])?["missions"] as? [[String: Any]])?.first { $0["id"] as? String == "quiz" }
            #expect(quiz?["complete"] as? Bool == true)
            #expect(quiz?["collage"] == nil, "a mission without photo tasks has no collage")
            let (_, answers) = try await client.send(.get, "/api/v1/groups/\(group.id)/answers", headers: bo.auth)
            #expect((answers["answers"] as? [[String: Any]])?.map { $0["answer"] as? String } == ["2", "1", "Blue Whale!", "lion42"])
            #expect((answers["facts"] as? [[String: Any]])?.map { $0["taskId"] as? String } == ["colour"])
            #expect((answers["deadlines"] as? [[String: Any]])?.map { $0["missionId"] as? String } == ["quiz"])
            let kinds = try await server.database().events(groupId: group.id, after: 0, limit: 100).map(\.kind)
            #expect(kinds.filter { $0 == .taskAnswered }.count == 4)
            #expect(kinds.suffix(3) == [.taskAnswered, .taskDone, .missionCompleted])

            // The recap to keep tells what the questions taught, though they made no collage.
            let (status, pdf) = try await PhotoRouteTests.bytes(client, "/api/v1/groups/\(group.id)/recap.pdf?lang=en", headers: ada.auth)
            #expect(status == .ok)
            let path = TestImages.folder + "/recap-\(UUID().uuidString).pdf"
            try pdf.write(to: URL(fileURLWithPath: path))
            let text = try RecapRouteTests.poppler("pdftotext", [path, "-"])
            #expect(text.contains("Quiz") && text.contains("White, the colour of purity."), "\(text)")
            #expect(try RecapRouteTests.images(inPDF: path).isEmpty)
        }
    }

    @Test("Guessing a code is slowed down: a player's fifth wrong try in a minute waits, the group's ninth, and a quarter hour's thirteenth; a right one is never counted")
    func guessing() async throws {
        // A code with no time limit, so that the clock may move by quarter hours.
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium(extraMission: Self.quiz.replacingOccurrences(of: "time_limit: 15", with: "time_limit: 240")))
        try await server.test { client in
            let ada = try await client.newPlayer("Ada"), bo = try await client.newPlayer("Bo"), cy = try await client.newPlayer("Cy")
            let group = try await client.newGroup(by: ada)
            _ = try await client.join(group.code, as: bo)
            _ = try await client.join(group.code, as: cy)
            let sticker = "/api/v1/groups/\(group.id)/missions/quiz/tasks/sticker/answer"
            func guess(_ code: String, as player: TestPlayer) async throws -> (TestResponse, [String: Any]) {
                try await client.send(.post, sticker, json: #"{"text": "\#(code)"}"#, headers: player.auth)
            }
            for index in 0..<GuessLimits.perPlayerPerMinute {
                #expect(try await guess(String(format: "%04d", index), as: ada).0.status == .ok)
            }
            let (refused, problem) = try await guess("0004", as: ada)
            #expect(refused.status == .tooManyRequests && problem["code"] as? String == "too-many-guesses", "\(problem)")
            let wait = try #require(refused.headers[.retryAfter].flatMap { Int($0) })
            #expect((1...60).contains(wait))
            // The right code waits too: the wait is for the task, not for wrong codes only.
            #expect(try await guess("LION-42", as: ada).0.status == .tooManyRequests)
            // Another task of the player's is not held up, nor another member, until the group's bound.
            #expect(try await client.send(.post, "/api/v1/groups/\(group.id)/missions/quiz/tasks/animal/answer", json: #"{"text": "shark"}"#, headers: ada.auth).0.status == .ok)
            for index in 0..<(GuessLimits.perGroupPerMinute - GuessLimits.perPlayerPerMinute) {
                #expect(try await guess(String(format: "1%03d", index), as: bo).0.status == .ok, "Bo's guess \(index + 1)")
            }
            #expect(try await guess("2000", as: cy).0.status == .tooManyRequests, "the group's bound")
            let stored = try await server.database().taskAnswers(groupId: group.id).filter { $0.task.taskId == "sticker" }
            #expect(stored.count == GuessLimits.perGroupPerMinute, "refused guesses are neither stored nor told")

            // A minute on, the group guesses again, until the quarter hour's bound.
            var tried = GuessLimits.perGroupPerMinute
            while tried < GuessLimits.perGroupPerQuarter {
                server.clock.advance(by: 61)
                for player in [bo, cy] where tried < GuessLimits.perGroupPerQuarter {
                    #expect(try await guess(String(format: "3%03d", tried), as: player).0.status == .ok, "guess \(tried + 1)")
                    tried += 1
                }
            }
            server.clock.advance(by: 61)
            let (late, _) = try await guess("4000", as: cy)
            #expect(late.status == .tooManyRequests, "the quarter hour's bound")
            #expect(try #require(late.headers[.retryAfter].flatMap { Int($0) }) > 60)
            server.clock.advance(by: 900)
            #expect(try await guess("LION-42", as: cy).1["right"] as? Bool == true, "after the wait, the right code is taken")
        }
    }

    @Test("A group whose timed mission runs out is over: the group document, read before the end, says missions-over once the clock passes it")
    func timedOutVisitEnds() async throws {
        let server = try TestServer()
        try server.write("quizroom.yaml", """
            id: quizroom
            name: Quiz room
            languages: [en]
            timezone: Europe/Stockholm
            theme:
              color: "#0b6e4f"
            missions:
            \(Self.quiz)
            """)
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada, venue: "quizroom")
            let sticker = "/api/v1/groups/\(group.id)/missions/quiz/tasks/sticker/answer"
            #expect(try await client.send(.post, sticker, json: #"{"text": "0000"}"#, headers: ada.auth).0.status == .ok)
            func visitEnd() async throws -> String? {
                let (response, body) = try await client.send(.get, "/api/v1/groups/\(group.id)", headers: ada.auth)
                #expect(response.status == .ok)
                return (body["group"] as? [String: Any])?["visitEnd"] as? String
            }
            #expect(try await visitEnd() == nil, "the quiz runs for 15 minutes")
            server.clock.advance(by: 15 * 60)
            #expect(try await visitEnd() == nil, "at its last second")
            server.clock.advance(by: 1)
            #expect(try await visitEnd() == "missions-over", "with no event since, the document read before the end is not served again")
        }
    }

    @Test("A group's attempts at a task stop at the cap: the next, right or wrong, is 409 attempts-used-up and is neither stored nor told")
    func attemptCap() async throws {
        // No time limit, so that the clock may move past the guess limits' windows.
        let server = try TestServer()
        try server.write("aquarium.yaml", TestServer.aquarium(extraMission: Self.quiz.replacingOccurrences(of: "    time_limit: 15\n", with: "")))
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let sticker = "/api/v1/groups/\(group.id)/missions/quiz/tasks/sticker/answer"
            for index in 0..<AnswerRules.maxAttempts {
                if index.isMultiple(of: GuessLimits.perPlayerPerMinute) { server.clock.advance(by: 901) }
                let (response, _) = try await client.send(.post, sticker, json: #"{"text": "\#(index)"}"#, headers: ada.auth)
                #expect(response.status == .ok, "attempt \(index + 1)")
            }
            server.clock.advance(by: 901)
            let (refused, problem) = try await client.send(.post, sticker, json: #"{"text": "LION-42"}"#, headers: ada.auth)
            #expect(refused.status == .conflict && problem["code"] as? String == "attempts-used-up", "\(problem)")
            let database = try server.database()
            #expect(try await database.taskAnswers(groupId: group.id).count == AnswerRules.maxAttempts)
            #expect(try await database.events(groupId: group.id, after: 0, limit: 500).filter { $0.kind == .taskAnswered }.count == AnswerRules.maxAttempts)
        }
    }

    @Test("Bad answers get problem documents and change nothing; a photo task takes no answer, a question no photo; outsiders learn nothing")
    func refusals() async throws {
        let server = try Self.server()
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let base = "/api/v1/groups/\(group.id)/missions"
            let cases: [(String, String, HTTPResponse.Status, String)] = [
                ("/quiz/tasks/colour/answer", #"{"text": "Vit"}"#, .unprocessableContent, "wrong-kind-of-answer"),
                ("/quiz/tasks/colour/answer", #"{"choice": 3}"#, .unprocessableContent, "no-such-choice"),
                ("/quiz/tasks/animal/answer", #"{"text": "   "}"#, .unprocessableContent, "invalid-answer"),
                // A NUL breaks PostgreSQL's text and SQLite would keep it: refused before either sees it.
                ("/quiz/tasks/animal/answer", #"{"text": "a\u0000b"}"#, .unprocessableContent, "invalid-answer"),
                ("/quiz/tasks/animal/answer", #"{"text": "a", "choice": 1}"#, .unprocessableContent, "invalid-answer"),
                ("/quiz/tasks/animal/answer", #"{"answer": "a"}"#, .unprocessableContent, "unknown-field"),
                ("/sharks/tasks/shark/answer", #"{"text": "a"}"#, .unprocessableContent, "photo-task"),
                ("/quiz/tasks/nope/answer", #"{"text": "a"}"#, .unprocessableContent, "unknown-task"),
            ]
            for (path, body, status, code) in cases {
                let (response, problem) = try await client.send(.post, base + path, json: body, headers: ada.auth)
                #expect(response.status == status && problem["code"] as? String == code, "\(path) \(body): \(problem)")
            }
            let (_, answers) = try await client.send(.get, "/api/v1/groups/\(group.id)/answers", headers: ada.auth)
            #expect((answers["answers"] as? [Any])?.isEmpty == true)
            let image = try TestImages.solid(width: 300, height: 200, rgb: (1, 100, 1), ext: "jpg")
            let (photo, why) = try await PhotoRouteTests.upload(client, image, as: ada, group: group.id, query: "?mission=quiz&task=colour")
            #expect(photo.status == .unprocessableContent && why["code"] as? String == "not-a-photo-task")
            let (collage, none) = try await client.send(.get, base + "/quiz/collage.jpg", headers: ada.auth)
            #expect(collage.status == .notFound && none["code"] as? String == "no-collage", "questions and codes alone make no collage: \(none)")
            let stranger = try await client.newPlayer("Cy")
            #expect(try await client.send(.post, base + "/quiz/tasks/colour/answer", json: #"{"choice": 1}"#, headers: stranger.auth).0.status == .notFound)
            #expect(try await client.send(.get, "/api/v1/groups/\(group.id)/answers", headers: stranger.auth).0.status == .notFound)
        }
    }

    @Test("Staff see the new tasks in the previews with their answers, print the code stickers, and count the answers in the numbers")
    func staff() async throws {
        let server = try Self.server()
        try await StaffConsoleTests.addStaff(server, "editor@aquarium.example", .editor, venues: ["aquarium"])
        try await server.test { client in
            let ada = try await client.newPlayer("Ada")
            let group = try await client.newGroup(by: ada)
            let base = "/api/v1/groups/\(group.id)/missions/quiz/tasks"
            _ = try await client.send(.post, base + "/colour/answer", json: #"{"choice": 2}"#, headers: ada.auth)
            _ = try await client.send(.post, base + "/colour/answer", json: #"{"choice": 1}"#, headers: ada.auth)
            let browser = try #require(try await StaffConsoleTests.signIn(client, "editor@aquarium.example").1)
            let (_, venue) = try await browser.page(client, "/staff/venues/aquarium")
            #expect(venue.contains("/staff/venues/aquarium/code-stickers.pdf"))
            let (status, pdf) = try await browser.page(client, "/staff/venues/aquarium/code-stickers.pdf")
            #expect(status == .ok && pdf.hasPrefix("%PDF"))
            let (_, missions) = try await browser.page(client, "/staff/venues/aquarium/missions")
            #expect(missions.contains("Code: LION-42") && missions.contains("Accepted: blåval, blue whale") && missions.contains(">right<"))
            #expect(missions.contains("15 minutes from the group"))
            #expect(try await browser.page(client, "/staff/venues/aquarium/missions/quiz/reward.jpg").0 == .notFound, "no photo task, no reward")
            let (_, numbers) = try await browser.page(client, "/staff/venues/aquarium/numbers")
            #expect(numbers.contains("Questions and found-it codes"))
            #expect(numbers.contains("<td>colour</td><td>question</td><td>1</td><td>1</td><td>2</td>"))
            // Answers start a mission of questions: started, not complete, still being played.
            let (_, missionsCSV) = try await browser.page(client, "/staff/venues/aquarium/numbers/missions.csv")
            #expect(missionsCSV.components(separatedBy: "\r\n").contains("quiz,1,0,1,0,"), "\(missionsCSV)")
        }
    }
}
