import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage

/// Joining, starting, leaving and renaming, and a visitor's erasure: each calls the store once,
/// which decides by `MembershipRules` and commits the change with its events, then owns what
/// follows the commit: a departed member's streams end, the events reach the others' streams,
/// and collages that showed an erased photographer are made again. Controllers parse the
/// request, call one method here and answer.
struct MembershipService: Sendable {
    let database: any GroupieStore
    let committed: Committed
    let catalog: VenueCatalog
    let files: PhotoFiles
    /// Erasing a player removes the bytes of their uploads not yet complete too.
    let partials: PartialUploads
    let clock: @Sendable () -> Date

    /// The new group with its contents as the creation committed them (`Join.created`): the
    /// creator alone, at version 0. A join elsewhere sent at the same time may have taken the
    /// creator out of it already, so the answer is made from these.
    func create(at venue: Venue, name: String?, by player: Player) async throws -> Created {
        let now = clock()
        let created = try await database.createGroup(
            venueId: venue.id, name: name, creatorId: player.id, joinableFor: TimeInterval(venue.rules.joinableHours * 3600), now: now
        )
        publish(created, by: player)
        committed.groupCreated(groupId: created.group.id)
        // Every store reads the creator with the creation; the request's player is the fallback.
        let contents = created.contents ?? GroupContents.created(by: player, at: now)
        return Created(membership: Membership(group: created.group, version: 0), contents: contents)
    }

    /// A group as its creation committed it.
    struct Created: Sendable {
        var membership: Membership
        var contents: GroupContents
    }

    /// `gate`: the limit of wrong codes the join passes first, read in its transaction.
    func join(code: JoinCode, by player: Player, gate: FailureGate? = nil) async throws -> Join {
        let joined = try await database.joinGroup(code: code, playerId: player.id, now: clock(), gate: gate) { [catalog] venueId in
            catalog.venue(id: venueId)?.venue.rules.maxGroupSize ?? VenueRules.defaultMaxGroupSize
        }
        publish(joined, by: player)
        return joined
    }

    /// `actor` ends `memberId`'s membership (their own, or another's as the creator): every
    /// stream of the group hears of it, the member's own last, which then ends.
    func remove(_ memberId: String, from groupId: String, by actor: Player) async throws {
        let left = try await database.removeMember(groupId: groupId, playerId: memberId, by: actor.id, now: clock())
        committed.publish(left)
        committed.endStreams(groupId: groupId, playerId: memberId)
    }

    /// Nil when the player was erased meanwhile.
    func update(_ player: Player, name: String?, language: String??) async throws -> PlayerUpdate? {
        guard let updated = try await database.updatePlayer(id: player.id, name: name, language: language, now: clock()) else { return nil }
        committed.publish(updated.events)
        return updated
    }

    /// Erases the player; their files go unless another photo has them, and the collages that
    /// showed their photos and name are made again without them, or withdrawn.
    func erase(_ player: Player) async throws {
        let group = try await database.currentGroup(of: player.id)
        let erasure = try await database.erasePlayer(id: player.id, now: clock()) { [catalog] venueId in catalog.venue(id: venueId)?.venue }
        try await files.removeFiles(of: erasure.unusedBlobs)
        // The erasure is committed: uploads that cannot go now go with their lifetime, and the
        // events and streams below still follow.
        try? await partials.discard(uploadsOf: player.id)
        committed.publish(erasure.events, also: erasure.groupsWithPhotos)
        if let group { committed.endStreams(groupId: group.id, playerId: player.id) }
    }

    /// Hands a join's events to the streams, then ends the player's streams of the group they
    /// left, which have had their `member-left` by then.
    private func publish(_ join: Join, by player: Player) {
        committed.publish(join.left)
        if let previous = join.left.first?.groupId {
            committed.endStreams(groupId: previous, playerId: player.id)
        }
        committed.publish(join.joined)
    }
}
