import Foundation

/// The group's feed: what happened in the group (photos, claims of tasks, completed missions,
/// who joined), newest first, read from its stored events, with the members' reactions to
/// photos and completed missions. Built here from the events alone: a reaction is an event
/// (`reaction-changed`) like every other change of a group, so the feed replays as the group
/// does, and it holds no name of its own (names come from the members when it is shown).
public enum GroupFeed {
    /// The reactions a member may give, by the key the API and the events use.
    public static let reactions = ["heart", "laugh", "wow", "clap", "star"]

    /// A stored event, as the feed reads it.
    public struct Source: Sendable, Equatable {
        public var seq: Int
        public var kind: GroupEventKind
        public var fields: [String: String]

        public init(seq: Int, kind: GroupEventKind, fields: [String: String]) {
            self.seq = seq
            self.kind = kind
            self.fields = fields
        }
    }

    /// One thing that happened, with the players who reacted to it by reaction.
    public struct Entry: Sendable, Equatable {
        /// The sequence number of its event: the entry's id.
        public var id: Int
        public var kind: GroupEventKind
        public var fields: [String: String]
        public var reactions: [String: Set<String>]

        public var reactable: Bool { GroupFeed.reactable.contains(kind) }
    }

    /// What the feed shows, and what members may react to.
    static let shown: Set<GroupEventKind> = [.memberJoined, .photoAdded, .taskClaimed, .missionCompleted]
    static let reactable: Set<GroupEventKind> = [.photoAdded, .missionCompleted]

    /// The feed of `events` (in any order), newest first, at most `limit` entries. A photo that
    /// left the group (`photo-removed`) leaves the feed with its reactions; one that staff
    /// restored comes back as a new entry, where its phones saw it arrive, and only there.
    public static func entries(_ events: [Source], limit: Int) -> [Entry] {
        var entries: [Int: Entry] = [:]
        var removedPhotos: Set<String> = []
        /// Each photo's entry: its latest `photo-added`.
        var photoEntries: [String: Int] = [:]
        for event in events.sorted(by: { $0.seq < $1.seq }) {
            switch event.kind {
            case .photoAdded:
                let photoId = event.fields["photoId"] ?? ""
                if let earlier = photoEntries.updateValue(event.seq, forKey: photoId) { entries[earlier] = nil }
                removedPhotos.remove(photoId)
                entries[event.seq] = Entry(id: event.seq, kind: .photoAdded, fields: event.fields, reactions: [:])
            case let kind where shown.contains(kind):
                entries[event.seq] = Entry(id: event.seq, kind: kind, fields: event.fields, reactions: [:])
            case .photoRemoved:
                if let photoId = event.fields["photoId"] { removedPhotos.insert(photoId) }
            case .reactionChanged:
                guard let entry = event.fields["entry"].flatMap(Int.init), let reaction = event.fields["reaction"],
                    let playerId = event.fields["playerId"], entries[entry]?.reactable == true
                else { continue }
                if event.fields["on"] == "true" {
                    entries[entry]?.reactions[reaction, default: []].insert(playerId)
                } else {
                    entries[entry]?.reactions[reaction]?.remove(playerId)
                    if entries[entry]?.reactions[reaction]?.isEmpty == true { entries[entry]?.reactions[reaction] = nil }
                }
            default:
                continue
            }
        }
        return entries.values
            .filter { $0.kind != .photoAdded || !removedPhotos.contains($0.fields["photoId"] ?? "") }
            .sorted { $0.id > $1.id }
            .prefix(max(0, limit))
            .map { $0 }
    }
}

/// Who may react to what: decided here from the entry's event, stored by the database with the
/// member's check in one transaction.
public enum ReactionRules {
    public enum Refusal: Error, Sendable, Equatable {
        /// Not one of `GroupFeed.reactions`.
        case unknownReaction
        /// The group has no such entry, or not one that takes reactions.
        case notReactable
    }

    /// The event of a member's reaction `reaction` to the entry `entry` (whose event is of
    /// `kind`; nil when the group has none by that number) put on or taken off. `given`: the
    /// `on` of the member's last `reaction-changed` for that reaction and entry, nil when they
    /// have none. Giving a reaction that is on, or taking off one that is not, changes nothing
    /// and tells nobody.
    public static func react(
        entry: Int, kind: GroupEventKind?, reaction: String, on: Bool, given: Bool?, by playerId: String
    ) throws(Refusal) -> [GroupEventPayload] {
        guard GroupFeed.reactions.contains(reaction) else { throw .unknownReaction }
        guard let kind, GroupFeed.reactable.contains(kind) else { throw .notReactable }
        guard on != (given ?? false) else { return [] }
        return [.reactionChanged(entry: entry, reaction: reaction, playerId: playerId, on: on)]
    }

    /// The `given` of `react` from the `on` field of the member's last event for the reaction.
    public static func given(_ field: String?) -> Bool? {
        field.map { $0 == "true" }
    }
}
