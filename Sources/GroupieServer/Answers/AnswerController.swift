import Foundation
import GroupieCore
import Hummingbird

/// A member answers a question or types a found code; the group reads its answers.
struct AnswerController {
    let answers: AnswerService

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        router.members(answers.database).post("missions/{missionId}/tasks/{taskId}/answer", use: answer).get("answers", use: list)
    }

    func answer(_ request: Request, context: MemberContext) async throws -> AnswerOutcome {
        let body = try await request.decode(as: AnswerRequest.self, context: context)
        let task = try PhotoController.pathTask(context)
        let given: AnswerRules.Given
        switch (body.choice, body.text) {
        case (let choice?, nil): given = .choice(choice - 1)
        case (nil, let text?): given = .text(text)
        default: throw Problem(.unprocessableContent, code: "invalid-answer", detail: "Give either 'choice' (the number of a choice, from 1) or 'text'.")
        }
        let outcome = try await answers.answer(given, to: task, by: context.player, in: context.group)
        return AnswerOutcome(right: outcome.right, fact: outcome.fact)
    }

    func list(_ request: Request, context: MemberContext) async throws -> AnswersDocument {
        try await answers.answers(of: context.group, seenBy: context.player)
    }
}
