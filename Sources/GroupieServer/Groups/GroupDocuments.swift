import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import Hummingbird

/// The group document as a member sees it, in their language, kept by `GroupDocumentCache`
/// for every member who reads the same version of the group.
struct GroupDocuments: Sendable {
    let database: any GroupieStore
    let catalog: VenueCatalog
    let links: JoinLinks
    let signer: ImageURLSigner
    let clock: @Sendable () -> Date
    let cache = GroupDocumentCache()

    /// Strangers and former members get 404, as for a group that does not exist, so that group
    /// ids reveal nothing.
    func document(groupId: String, for player: Player, request: Request) async throws -> GroupEnvelope {
        guard let membership = try await database.membership(playerId: player.id, groupId: groupId) else { throw Problem.groupNotFound }
        return try await document(membership, for: player, request: request)
    }

    /// In the language `?lang=` names, else the player's, else the one `Accept-Language` prefers
    /// among the venue's. `contents`: the group's at the membership's version, when the caller
    /// has them already (a join's).
    func document(_ membership: Membership, for player: Player, request: Request, contents known: GroupContents? = nil) async throws -> GroupEnvelope {
        let group = membership.group, version = membership.version
        let entry = catalog.venue(id: group.venueId)
        let venue = entry?.venue
        let language = venue.map {
            LanguageNegotiation.choose(
                explicit: request.uri.queryParameters["lang"].map(String.init) ?? player.language,
                acceptLanguage: request.headers[.acceptLanguage], offered: $0.languages
            )
        }
        let now = clock()
        // The same for every member who reads the same version of the group in the same
        // language, with the venue's same file, in the same hour of signed URLs.
        let key = GroupDocumentCache.Key(
            groupId: group.id, version: version, language: language, venueHash: entry?.contentHash,
            joinable: group.isJoinable(at: now), urlHour: signer.expiryHour(now: now)
        )
        if let cached = cache.document(for: key, now: now) { return GroupEnvelope(json: cached) }
        let contents: GroupContents
        if let known { contents = known } else { contents = try await database.groupContents(group) }
        let document = GroupDocument(
            group: group, members: contents.members, venue: venue, language: language, taskPhotos: contents.taskPhotos,
            collages: contents.collages, claims: contents.claims, links: links, signer: signer, now: now
        )
        let bytes = ByteBuffer(data: try GroupieRequestContext.jsonEncoder().encode(["group": document]))
        // Served until the clock alone changes it: a claim ends, or a timed mission does.
        let claimEnds = contents.claims.map(\.expiresAt).filter { $0 > now }
        let missionEnd = venue.flatMap { VisitEnd.nextDeadline(in: $0, photos: contents.taskPhotos, after: now) }
        cache.store(bytes, for: key, until: (claimEnds + [missionEnd].compactMap { $0 }).min())
        return GroupEnvelope(json: bytes)
    }
}
