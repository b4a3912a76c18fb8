import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieStorage
import HTTPTypes
import Hummingbird

/// Groups: create, join by code, look, leave, and the QR code that others join by.
struct GroupController {
    static let qrSizes = 64...2048
    static let qrDefaultSize = 512

    let database: any GroupieStore
    let catalog: VenueCatalog
    let links: JoinLinks
    let clock: @Sendable () -> Date
    let limiterByPlayer: JoinRateLimiter
    let limiterByAddress: JoinRateLimiter
    let creationsByAddress: JoinRateLimiter
    let clientAddress: ClientAddress
    let signer: ImageURLSigner
    let membership: MembershipService
    let documents = GroupDocumentCache()

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        router.players(database).post("groups", use: create).post("groups/join", use: join)
        router.members(database).get(use: show).delete("members/{playerId}", use: removeMember)
            .get("qr.png", use: qrPNG).get("qr.svg", use: qrSVG)
    }

    func create(_ request: Request, context: GroupieRequestContext) async throws -> EditedResponse<GroupEnvelope> {
        let player = try context.player
        let now = clock()
        let address = clientAddress.of(request, context: context)
        try await creationsByAddress.requireCreationAllowed("groups/" + address, what: "groups", now: now)
        let body = try await request.decode(as: NewGroup.self, context: context)
        guard let venue = catalog.venue(id: body.venueId)?.venue else {
            throw Problem.notFound("venue-not-found", "There is no venue '\(body.venueId.prefix(64))'.")
        }
        let name = try body.name.map { try PlayerInput.name($0, field: "name", limits: DisplayName.group) }
        let group = try await membership.create(at: venue, name: name, by: player).group
        await creationsByAddress.recordFailure("groups/" + address, now: now)
        context.logger.info("group created", metadata: ["group": "\(group.id)", "venue": "\(venue.id)"])
        return EditedResponse(status: .created, response: try await document(groupId: group.id, player: player, request: request))
    }

    func join(_ request: Request, context: GroupieRequestContext) async throws -> GroupEnvelope {
        let player = try context.player
        let now = clock()
        let address = clientAddress.of(request, context: context)
        if let seconds = await JoinRateLimiter.retryAfter([(limiterByPlayer, player.id), (limiterByAddress, address)], now: now) {
            throw Problem(
                .tooManyRequests, code: "too-many-attempts",
                detail: "Too many wrong codes; try again in \(seconds) seconds.",
                headers: [.retryAfter: "\(seconds)"]
            )
        }
        let body = try await request.decode(as: JoinRequest.self, context: context)
        func failed() async {
            await limiterByPlayer.recordFailure(player.id, now: now)
            await limiterByAddress.recordFailure(address, now: now)
        }
        guard let code = JoinCode(typed: body.code) else {
            await failed()
            throw Problem.badRequest("invalid-code", "A group code has 6 to 8 letters and digits (no 0, O, 1, I or L).")
        }
        let joined: Join
        do {
            joined = try await membership.join(code: code, by: player)
        } catch MembershipError.unknownCode {
            await failed()
            throw MembershipError.unknownCode
        }
        let group = joined.group
        context.logger.info("group joined", metadata: ["group": "\(group.id)", "player": "\(player.id)"])
        if let membership = joined.membership {
            return try await document(player, membership: membership, request: request)
        }
        return try await document(groupId: group.id, player: player, request: request)
    }

    func show(_ request: Request, context: GroupieRequestContext) async throws -> GroupEnvelope {
        try await document(try context.player, membership: try context.member, request: request)
    }

    func removeMember(_ request: Request, context: GroupieRequestContext) async throws -> HTTPResponse.Status {
        let player = try context.player
        let groupId = try context.parameters.require("groupId")
        let memberId = try context.parameters.require("playerId")
        try await membership.remove(memberId, from: groupId, by: player)
        context.logger.info("member left", metadata: ["group": "\(groupId)", "player": "\(memberId)", "by": "\(player.id)"])
        return .noContent
    }

    func qrPNG(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let (code, size) = try await qrCode(request, context: context)
        let png = try code.png(scale: code.scale(forPixels: size))
        return Response(
            status: .ok,
            headers: [.contentType: "image/png", .cacheControl: "private, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(bytes: png))
        )
    }

    func qrSVG(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let (code, size) = try await qrCode(request, context: context)
        return Response(
            status: .ok,
            headers: [.contentType: "image/svg+xml", .cacheControl: "private, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(string: code.svg(pixels: size)))
        )
    }

    // MARK: -


    /// The group as its member sees it; strangers and former members get 404, as for a group
    /// that does not exist, so that group ids reveal nothing.
    private func document(groupId: String, player: Player, request: Request) async throws -> GroupEnvelope {
        guard let membership = try await database.membership(playerId: player.id, groupId: groupId) else { throw Problem.groupNotFound }
        return try await document(player, membership: membership, request: request)
    }

    private func document(_ player: Player, membership: Membership, request: Request) async throws -> GroupEnvelope {
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
        if let cached = documents.document(for: key) { return GroupEnvelope(json: cached) }
        let contents = try await database.groupContents(group)
        let document = GroupDocument(
            group: group, members: contents.members, venue: venue, language: language, taskPhotos: contents.taskPhotos,
            collages: contents.collages, links: links, signer: signer, now: now
        )
        let bytes = ByteBuffer(data: try GroupieRequestContext.jsonEncoder().encode(["group": document]))
        documents.store(bytes, for: key)
        return GroupEnvelope(json: bytes)
    }

    private func qrCode(_ request: Request, context: GroupieRequestContext) async throws -> (QRCode, Int) {
        let group = try context.group
        let size = try request.integerParameter("size", in: Self.qrSizes, fallback: Self.qrDefaultSize, code: "invalid-size", unit: " of pixels")
        return (try QRCode(links.url(group.joinCode)), size)
    }
}
