import Foundation
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird

/// The group's feed of what happened, and the members' reactions to its photos and completed
/// missions: `GET /groups/{id}/feed`, `PUT` and `DELETE /groups/{id}/feed/{entryId}/reactions/{reaction}`.
struct GroupFeedController {
    let feed: GroupFeedService
    let signer: ImageURLSigner

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        router.members(feed.database).get("feed", use: read)
            .put("feed/{entryId}/reactions/{reaction}", use: react).delete("feed/{entryId}/reactions/{reaction}", use: takeBack)
    }

    func read(_ request: Request, context: MemberContext) async throws -> FeedDocument {
        let now = feed.clock()
        let entries = try await feed.entries(of: context.group)
        return FeedDocument(
            reactions: GroupFeed.reactions,
            entries: entries.map { FeedDocument.Entry($0, viewer: context.player.id, signer: signer, now: now) }
        )
    }

    func react(_ request: Request, context: MemberContext) async throws -> HTTPResponse.Status {
        try await feed.react(try Self.entry(context), try Self.reaction(context), on: true, by: context.player, in: context.group)
        return .noContent
    }

    func takeBack(_ request: Request, context: MemberContext) async throws -> HTTPResponse.Status {
        try await feed.react(try Self.entry(context), try Self.reaction(context), on: false, by: context.player, in: context.group)
        return .noContent
    }

    static func entry(_ context: MemberContext) throws -> Int {
        guard let entry = Int(try context.parameters.require("entryId")), entry > 0 else { throw ReactionRules.Refusal.notReactable }
        return entry
    }

    static func reaction(_ context: MemberContext) throws -> String {
        let reaction = try context.parameters.require("reaction")
        guard GroupFeed.reactions.contains(reaction) else { throw ReactionRules.Refusal.unknownReaction }
        return reaction
    }
}

/// Reads the feed and stores reactions; publishes what it stored.
struct GroupFeedService {
    /// How far back the feed looks: the group's latest events.
    static let window = 400
    static let shown = 60

    let database: any GroupieStore
    let committed: Committed
    let toggles: ToggleAllowance
    let clock: @Sendable () -> Date

    func entries(of group: Group) async throws -> [GroupFeed.Entry] {
        let newest = try await database.newestEvents(of: [group.id])[group.id] ?? 0
        let events = try await database.events(groupId: group.id, after: max(0, newest - Self.window), limit: Self.window)
        return GroupFeed.entries(events.map { GroupFeed.Source(seq: $0.seq, kind: $0.kind, fields: $0.fields) }, limit: Self.shown)
    }

    func react(_ entry: Int, _ reaction: String, on: Bool, by player: Player, in group: Group) async throws {
        let now = clock()
        committed.publish(try await toggles.take(player, now: now, {
            try await database.react(groupId: group.id, entry: entry, reaction: reaction, on: on, playerId: player.id, now: now)
        }, changed: { !$0.isEmpty }))
    }
}

/// The feed as members read it. Reactions name the players who gave them, by id: the screen
/// shows the members' names it has.
struct FeedDocument: ResponseEncodable {
    struct Reaction: Codable {
        var reaction: String
        var count: Int
        var playerIds: [String]
        var mine: Bool
    }

    struct Entry: Codable {
        var id: Int
        var kind: String
        var playerId: String?
        var name: String?
        var missionId: String?
        var taskId: String?
        var photoId: String?
        var thumbnailUrl: String?
        var reactable: Bool
        var reactions: [Reaction]

        init(_ entry: GroupFeed.Entry, viewer: String, signer: ImageURLSigner, now: Date) {
            id = entry.id
            kind = entry.kind.rawValue
            playerId = entry.fields["playerId"] ?? entry.fields["photographerId"]
            name = entry.fields["name"] ?? entry.fields["photographerName"]
            missionId = entry.fields["missionId"]
            taskId = entry.fields["taskId"]
            photoId = entry.fields["photoId"]
            thumbnailUrl = photoId.map { signer.url(photoId: $0, variant: "thumb", now: now) }
            reactable = entry.reactable
            reactions = GroupFeed.reactions.compactMap { key in
                guard let players = entry.reactions[key], !players.isEmpty else { return nil }
                return Reaction(reaction: key, count: players.count, playerIds: players.sorted(), mine: players.contains(viewer))
            }
        }
    }

    var reactions: [String]
    var entries: [Entry]
}
