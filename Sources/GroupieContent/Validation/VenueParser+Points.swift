import GroupieCore
import Yams

/// `points:`: what tasks and missions are worth and the badges on offer (off without it).
extension VenueParser {
    static let pointsKeys = ["task", "mission", "badges"]

    func points(_ node: Node) throws -> PointsRules? {
        guard let fields = try mapping(node, describedAs: MissionMessages.pointsName, allowed: Self.pointsKeys, required: []) else { return nil }
        var rules = PointsRules()
        var valid = true
        if let taskNode = fields["task"] {
            if let value = integer(taskNode, key: "task", range: PointsRules.valueRange) { rules.task = value } else { valid = false }
        }
        if let missionNode = fields["mission"] {
            if let value = integer(missionNode, key: "mission", range: PointsRules.valueRange) { rules.mission = value } else { valid = false }
        }
        if let badgesNode = fields["badges"] {
            guard case .sequence(let items) = badgesNode else {
                error(badgesNode.mark, MissionMessages.badgesNotList(badgesNode, badges: Badge.allCases.map(\.rawValue)))
                return nil
            }
            for item in items {
                try count()
                guard let badge: Badge = choice(item, key: "badges", describedAs: "badge") else {
                    valid = false
                    continue
                }
                if rules.badges.contains(badge) {
                    error(item.mark, MissionMessages.badgeTwice(badge.rawValue))
                    valid = false
                    continue
                }
                rules.badges.append(badge)
            }
        }
        return valid ? rules : nil
    }
}
