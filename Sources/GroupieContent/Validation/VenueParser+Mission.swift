import GroupieCore
import Yams

/// The missions: the list, each mission's fields, and the order `after` puts them in.
extension VenueParser {
    static let missionKeys = ["id", "title", "icon", "area", "where", "after", "fact", "style", "sticker", "sticker_place", "sticker_corner", "time_limit", "tasks"]
    static let whereKeys = ["hint", "pin"]
    static let missionRequired = ["id", "title", "icon", "tasks"]

    func missions(_ node: Node) throws -> [Mission]? {
        guard case .sequence(let sequence) = node else {
            error(node.mark, MissionMessages.missionsNotList(node))
            return nil
        }
        if sequence.isEmpty {
            error(node.mark, MissionMessages.noMissions)
            return nil
        }
        var missions: [Mission] = []
        var afterMarks: [String: Mark?] = [:]
        var references: [(missionId: String, after: [String], mark: Mark?)] = []
        var firstSeen: [String: Mark?] = [:]
        var allValid = true
        for (position, item) in sequence.enumerated() {
            let isDuplicate = isDuplicateId(of: item, seen: &firstSeen) { MissionMessages.duplicateMissionId($0, firstAt: $1) }
            let parsed = try mission(item, position: position + 1)
            if let id = parsed.id, let after = parsed.after { references.append((id, after, parsed.afterMark)) }
            guard let valid = parsed.mission, !isDuplicate else {
                allValid = false
                continue
            }
            afterMarks[valid.id] = parsed.afterMark
            missions.append(valid)
        }
        // References are checked against every mission that has a readable id, and from every
        // mission whose `after` can be read, even one broken elsewhere: staff see every problem
        // of a file at once, not one per save.
        let known = Set(firstSeen.keys)
        for (missionId, after, mark) in references {
            for reference in after where !known.contains(reference) {
                let suggestion = Suggestion.closest(to: reference, among: known)
                error(mark, MissionMessages.unknownAfter(reference, of: missionId, suggestion: suggestion))
                allValid = false
            }
        }
        for cycle in MissionOrder.cycles(in: missions) {
            error(afterMarks[cycle[0]] ?? nil, MissionMessages.afterCycle(cycle))
            allValid = false
        }
        return allValid ? missions : nil
    }

    /// A mission as far as it could be read: the mission when all of it is valid, and its id and
    /// `after` list whenever those are, for the checks that look across missions.
    private struct ParsedMission {
        var mission: Mission?
        var id: String?
        var after: [String]?
        var afterMark: Mark?
    }

    private func mission(_ node: Node, position: Int) throws -> ParsedMission {
        let label = MissionMessages.mission(id: node.rawId?.id, position: position)
        guard let fields = try mapping(node, describedAs: label, allowed: Self.missionKeys, required: Self.missionRequired) else {
            return ParsedMission()
        }
        let id = fields["id"].flatMap { identifier($0, describedAs: MissionMessages.missionId) }
        let title = try fields["title"].flatMap { try text($0, key: "title") }
        let icon = fields["icon"].flatMap { asset($0, key: "icon") }
        let area = try fields["area"].flatMap { try text($0, key: "area") }
        let fact = try fields["fact"].flatMap { try text($0, key: "fact") }
        let location = try fields["where"].flatMap(location)
        let after = fields["after"].flatMap(afterList)
        let reward = self.reward(fields, missionLabel: label)
        let tasks = try fields["tasks"].flatMap { try self.tasks($0, missionLabel: label) }
        let timeLimit = fields["time_limit"].flatMap { integer($0, key: "time_limit", range: Mission.timeLimitRange) }

        var parsed = ParsedMission(id: id, after: after, afterMark: fields["after"]?.mark)
        guard rewardFits(reward, tasks: tasks, tasksNode: fields["tasks"], missionLabel: label) else { return parsed }
        guard let id, let title, let icon, let tasks, let style = reward.style, reward.isValid else { return parsed }
        if fields["area"] != nil, area == nil { return parsed }
        if fields["fact"] != nil, fact == nil { return parsed }
        if fields["after"] != nil, after == nil { return parsed }
        if fields["where"] != nil, location == nil { return parsed }
        if fields["time_limit"] != nil, timeLimit == nil { return parsed }
        parsed.mission = Mission(
            id: id, title: title, icon: icon, area: area, after: after ?? [], fact: fact,
            style: style, sticker: reward.sticker, tasks: tasks, location: location,
            stickerPlace: reward.place, stickerCorner: reward.corner, timeLimit: timeLimit
        )
        return parsed
    }

    /// `where:`: a `hint` to find the mission and a `pin` on the venue's map, `[x, y]` in percent.
    private func location(_ node: Node) throws -> MissionLocation? {
        guard let fields = try mapping(node, describedAs: MissionMessages.whereName, allowed: Self.whereKeys, required: []) else {
            return nil
        }
        if fields.values.isEmpty {
            error(node.mark, MissionMessages.whereEmpty)
            return nil
        }
        let hint = try fields["hint"].flatMap { try text($0, key: "hint") }
        let pin = fields["pin"].flatMap(pin)
        if fields["hint"] != nil, hint == nil { return nil }
        if fields["pin"] != nil, pin == nil { return nil }
        return MissionLocation(hint: hint, pin: pin)
    }

    private func pin(_ node: Node) -> MapPin? {
        if !hasMap { error(node.mark, MissionMessages.pinWithoutMap) }
        guard case .sequence(let sequence) = node, sequence.count == 2 else {
            error(node.mark, MissionMessages.pinNotPair(node))
            return nil
        }
        let values = sequence.map { item -> Double? in
            guard case .scalar(let scalar) = item, scalar.style == .plain, let value = Double(scalar.string), value.isFinite else {
                error(item.mark, MissionMessages.pinNotNumber(item))
                return nil
            }
            guard MapPin.range.contains(value) else {
                error(item.mark, MissionMessages.pinOutside(value))
                return nil
            }
            return value
        }
        guard hasMap, let x = values[0], let y = values[1] else { return nil }
        return MapPin(x: x, y: y)
    }

    private func afterList(_ node: Node) -> [String]? {
        let items: [Node]
        switch node {
        case .scalar:
            items = [node]
        case .sequence(let sequence):
            items = Array(sequence)
        case .mapping:
            error(node.mark, MissionMessages.afterIsMapping)
            return nil
        }
        var ids: [String] = []
        var valid = true
        for item in items {
            guard let id = identifier(item, describedAs: MissionMessages.afterEntry) else {
                valid = false
                continue
            }
            if !ids.contains(id) { ids.append(id) }
        }
        return valid ? ids : nil
    }
}
