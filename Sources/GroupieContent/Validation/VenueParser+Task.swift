import GroupieCore
import Yams

/// A mission's tasks: the photos a group has to take, the questions it answers, the codes it finds.
extension VenueParser {
    static let taskKeys = ["id", "kind", "prompt", "question", "hint", "camera", "framing", "choices", "answer", "answers", "code", "fact"]
    /// The keys that belong to one kind of task only; `prompt` is what a photo or a code task
    /// asks for, `question` is a question's own.
    static let keysOfKind: [String: [String]] = [
        "photo": ["prompt", "camera", "framing"],
        "question": ["question", "choices", "answer", "answers", "fact"],
        "code": ["prompt", "code", "fact"],
    ]

    func tasks(_ node: Node, missionLabel: String) throws -> [MissionTask]? {
        guard case .sequence(let sequence) = node else {
            error(node.mark, MissionMessages.tasksNotList(node))
            return nil
        }
        var valid = true
        if !Mission.taskRange.contains(sequence.count) {
            error(node.mark, MissionMessages.taskCount(missionLabel, count: sequence.count))
            valid = false
        }
        var tasks: [MissionTask] = []
        var firstSeen: [String: Mark?] = [:]
        for (position, item) in sequence.enumerated() {
            let label = MissionMessages.task(id: item.rawId?.id, position: position + 1, of: missionLabel)
            if isDuplicateId(of: item, seen: &firstSeen, { MissionMessages.duplicateTaskId($0, in: missionLabel, firstAt: $1) }) {
                valid = false
            }
            // A question asks its `question`, other tasks their `prompt`; the kind is peeked at
            // first, so that a misspelt key is named once, with its correction.
            let promptKey = item.rawValue(of: "kind") == "question" ? "question" : "prompt"
            guard let fields = try mapping(item, describedAs: label, allowed: Self.taskKeys, required: ["id", promptKey]) else {
                valid = false
                continue
            }
            guard let task = try task(fields, at: item, label: label) else {
                valid = false
                continue
            }
            tasks.append(task)
        }
        return valid ? tasks : nil
    }

    private func task(_ fields: Fields, at item: Node, label: String) throws -> MissionTask? {
        let kindName: String? = fields["kind"].map { (node: Node) -> String? in
            guard let value = node.scalarText, TaskKind.names.contains(value) else {
                let written = node.scalarText ?? ""
                error(node.mark, MissionMessages.unknownChoice("task kind", written, choices: TaskKind.names, suggestion: Suggestion.closest(to: written, among: TaskKind.names)))
                return nil
            }
            return value
        } ?? "photo"
        guard let kindName else { return nil }
        var valid = true
        let own = Self.keysOfKind[kindName] ?? []
        for key in Self.taskKeys where fields[key] != nil && !own.contains(key) {
            let kinds = TaskKind.names.filter { Self.keysOfKind[$0]?.contains(key) == true }
            guard !kinds.isEmpty else { continue }
            error(fields.keyMark(key), MissionMessages.keyOfOtherKind(key, kind: kindName, of: label, belongsTo: kinds.joined(separator: " or ")))
            valid = false
        }
        let promptKey = kindName == "question" ? "question" : "prompt"
        let id = fields["id"].flatMap { identifier($0, describedAs: MissionMessages.taskId) }
        let prompt = try fields[promptKey].flatMap { try text($0, key: promptKey) }
        let hint = try fields["hint"].flatMap { try text($0, key: "hint") }
        let fact = try fields["fact"].flatMap { try text($0, key: "fact") }
        let camera: CameraFacing? = fields["camera"].map { choice($0, key: "camera", describedAs: "camera") } ?? CameraFacing.back
        let framing: Framing? = fields["framing"].map { choice($0, key: "framing", describedAs: "framing") } ?? .focus
        let kind: TaskKind?
        switch kindName {
        case "question": kind = try question(fields, at: item, label: label).map(TaskKind.question)
        case "code": kind = foundCode(fields, at: item, label: label).map(TaskKind.code)
        default: kind = .photo
        }
        guard valid, let id, let prompt, fields["hint"] == nil || hint != nil, fields["fact"] == nil || fact != nil,
            let camera, let framing, let kind
        else { return nil }
        return MissionTask(id: id, prompt: prompt, hint: hint, camera: camera, framing: framing, kind: kind, fact: fact)
    }
}
