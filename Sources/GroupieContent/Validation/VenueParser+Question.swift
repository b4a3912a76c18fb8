import GroupieCore
import Yams

/// A question's choices and right answers, and a found-it code.
extension VenueParser {
    /// `choices:` with `answer:` (the number of the right choice, or a list of them), or
    /// `answers:` (the accepted variants of a short answer).
    func question(_ fields: Fields, at item: Node, label: String) throws -> Question? {
        switch (fields["choices"], fields["answers"]) {
        case (nil, nil):
            error(item.mark, MissionMessages.questionWithoutAnswer(label))
            return nil
        case (.some, .some):
            error(fields.keyMark("answers"), MissionMessages.choicesAndAnswers(label))
            return nil
        case (nil, .some(let answers)):
            if fields["answer"] != nil {
                error(fields.keyMark("answer"), MissionMessages.answerWithoutChoices(label))
                return nil
            }
            return accepted(answers).map(Question.init(accepted:))
        case (.some(let choicesNode), nil):
            let choices = try self.choices(choicesNode)
            guard let answerNode = fields["answer"] else {
                error(item.mark, MissionMessages.missingKey("answer", in: label))
                return nil
            }
            guard let choices, let right = rightChoices(answerNode, count: choices.count) else { return nil }
            return Question(choices: choices, right: right)
        }
    }

    private func choices(_ node: Node) throws -> [LocalizedText]? {
        guard case .sequence(let sequence) = node, Question.choiceRange.contains(sequence.count) else {
            error(node.mark, MissionMessages.choicesNotList(node, range: Question.choiceRange))
            return nil
        }
        var choices: [LocalizedText] = []
        for item in sequence {
            guard let choice = try text(item, key: "choices") else { return nil }
            choices.append(choice)
        }
        return choices
    }

    /// `answer: 2` or `answer: [1, 3]`: the right choices by their number from 1.
    private func rightChoices(_ node: Node, count: Int) -> Set<Int>? {
        let items: [Node]
        switch node {
        case .sequence(let sequence) where !sequence.isEmpty: items = Array(sequence)
        case .scalar: items = [node]
        default:
            error(node.mark, MissionMessages.answerNotChoiceNumber(node, count: count))
            return nil
        }
        var right = Set<Int>()
        for item in items {
            guard let number = integer(item, key: "answer", range: 1...count) else { return nil }
            right.insert(number - 1)
        }
        return right
    }

    private func accepted(_ node: Node) -> [String]? {
        let items: [Node]
        switch node {
        case .scalar: items = [node]
        case .sequence(let sequence) where Question.acceptedRange.contains(sequence.count): items = Array(sequence)
        default:
            error(node.mark, MissionMessages.answersNotList(node, range: Question.acceptedRange))
            return nil
        }
        var accepted: [String] = []
        for item in items {
            guard let text = item.scalarText?.trimmingWhitespace(), !AnswerText.normalized(text).isEmpty else {
                error(item.mark, MissionMessages.emptyAnswer)
                return nil
            }
            guard text.count <= AnswerRules.maxLength else {
                error(item.mark, MissionMessages.textTooLong("answers", length: text.count, limit: AnswerRules.maxLength))
                return nil
            }
            accepted.append(text)
        }
        return accepted
    }

    func foundCode(_ fields: Fields, at item: Node, label: String) -> FoundCode? {
        guard let node = fields["code"] else {
            error(item.mark, MissionMessages.missingKey("code", in: label))
            return nil
        }
        guard let code = node.scalarText, FoundCode.isValid(code) else {
            error(node.mark, MissionMessages.badCode(node.scalarText ?? ""))
            return nil
        }
        if FoundCode.possibleCodes(like: code) < FoundCode.guessableBelow {
            warning(node.mark, MissionMessages.guessableCode(code))
        }
        return FoundCode(code: code.uppercased())
    }
}
