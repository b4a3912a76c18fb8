import GroupieCore
import Yams

/// A mission's reward: the picture a group gets when the mission is complete, read from
/// the mission's `style` and `sticker` keys, and where the sticker goes (`sticker_place`,
/// `sticker_corner`).
extension VenueParser {
    struct Reward {
        /// nil when `style` names no style.
        var style: VisualStyle?
        /// Only for `style: sticker`; a sticker given with another style is not used.
        var sticker: String?
        var place: StickerPlace?
        var corner: StickerCorner = .bottomRight
        var isValid: Bool
    }

    func reward(_ fields: Fields, missionLabel: String) -> Reward {
        var style: VisualStyle? = .auto
        if let styleNode = fields["style"] { style = self.style(styleNode) }
        var sticker: String?
        var stickerValid = true
        if let stickerNode = fields["sticker"] {
            sticker = asset(stickerNode, key: "sticker")
            stickerValid = sticker != nil
            if let style, style != .sticker {
                warning(fields.keyMark("sticker"), MissionMessages.stickerNotUsed(style: style.rawValue))
            }
        } else if style == .sticker {
            error(fields["style"]?.mark, MissionMessages.stickerMissing(missionLabel))
            stickerValid = false
        }
        let place: StickerPlace? = fields["sticker_place"].flatMap { choice($0, key: "sticker_place", describedAs: "sticker place") }
        let corner: StickerCorner? = fields["sticker_corner"].map { choice($0, key: "sticker_corner", describedAs: "sticker corner") } ?? .bottomRight
        let placeValid = fields["sticker_place"] == nil || place != nil
        for key in ["sticker_place", "sticker_corner"] where fields[key] != nil && style != nil && style != .sticker {
            warning(fields.keyMark(key), MissionMessages.stickerKeyNotUsed(key, style: style?.rawValue ?? ""))
        }
        return Reward(
            style: style, sticker: style == .sticker ? sticker : nil, place: place, corner: corner ?? .bottomRight,
            isValid: style != nil && stickerValid && placeValid && corner != nil
        )
    }

    /// A sticker goes on one photo, so a sticker mission has one task; checked once the tasks are read.
    func rewardFits(_ reward: Reward, tasks: [MissionTask]?, tasksNode: Node?, missionLabel: String) -> Bool {
        guard reward.style == .sticker, let tasks, tasks.count > 1, let tasksNode else { return true }
        error(tasksNode.mark, MissionMessages.stickerWithTasks(missionLabel, count: tasks.count))
        return false
    }

    private func style(_ node: Node) -> VisualStyle? {
        if let value = node.scalarText, let style = VisualStyle(rawValue: value) {
            return style
        }
        let value = node.scalarText ?? ""
        let styles = VisualStyle.allCases.map(\.rawValue)
        error(node.mark, MissionMessages.unknownStyle(value, styles: styles, suggestion: Suggestion.closest(to: value, among: styles)))
        return nil
    }
}
