import GroupieCore
import Yams

/// A mission's tasks: the photos a group has to take.
extension VenueParser {
    static let taskKeys = ["id", "prompt", "hint", "camera", "framing"]
    static let taskRequired = ["id", "prompt"]

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
            guard let fields = try mapping(item, describedAs: label, allowed: Self.taskKeys, required: Self.taskRequired) else {
                valid = false
                continue
            }
            let id = fields["id"].flatMap { identifier($0, describedAs: MissionMessages.taskId) }
            let prompt = try fields["prompt"].flatMap { try text($0, key: "prompt") }
            let hint = try fields["hint"].flatMap { try text($0, key: "hint") }
            let camera: CameraFacing? = fields["camera"].map { choice($0, key: "camera", describedAs: "camera") } ?? CameraFacing.back
            let framing: Framing? = fields["framing"].map { choice($0, key: "framing", describedAs: "framing") } ?? .focus
            guard let id, let prompt, fields["hint"] == nil || hint != nil, let camera, let framing else {
                valid = false
                continue
            }
            tasks.append(MissionTask(id: id, prompt: prompt, hint: hint, camera: camera, framing: framing))
        }
        return valid ? tasks : nil
    }

}
