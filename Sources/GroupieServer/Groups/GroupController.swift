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

    let membership: MembershipService
    let documents: GroupDocuments
    let limits: JoinLimits

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        router.players(membership.database).post("groups", use: create).post("groups/join", use: join)
        router.members(membership.database).get(use: show).delete("members/{playerId}", use: removeMember)
            .get("qr.png", use: qrPNG).get("qr.svg", use: qrSVG)
    }

    func create(_ request: Request, context: PlayerContext) async throws -> EditedResponse<GroupEnvelope> {
        let key = "groups/" + limits.clientAddress.of(request, context: context)
        try await limits.creationsByAddress.requireCreationAllowed(key, what: "groups", now: membership.clock())
        let body = try await request.decode(as: NewGroup.self, context: context)
        // The time its body ended: one sent slowly counts when it is read.
        let now = membership.clock()
        guard let venue = membership.catalog.venue(id: body.venueId)?.venue else {
            throw Problem.notFound("venue-not-found", "There is no venue '\(body.venueId.prefix(64))'.")
        }
        let name = try body.name.map { try PlayerInput.name($0, field: "name", limits: DisplayName.group) }
        let created = try await limits.creationsByAddress.creating(key, what: "groups", now: now) {
            try await membership.create(at: venue, name: name, by: context.player)
        }
        let group = created.membership.group
        context.logger.info("group created", metadata: ["group": "\(group.id)", "venue": "\(group.venueId)"])
        return EditedResponse(
            status: .created, response: try await documents.document(created.membership, for: context.player, request: request, contents: created.contents)
        )
    }

    func join(_ request: Request, context: PlayerContext) async throws -> GroupEnvelope {
        let player = context.player
        let address = limits.clientAddress.of(request, context: context)
        // The limit of wrong codes is read in the join's own transaction (on PostgreSQL, by the
        // statement that reads the groups, which it leaves out when refused); a request refused
        // before it reaches the store reads it on its own first, as a locked-out client hears
        // 429 whatever it sends.
        let body: JoinRequest
        do {
            body = try await request.decode(as: JoinRequest.self, context: context)
        } catch {
            try await limits.attempt(player, address: address) {
                try await limits.requireJoinAllowed(player, address: address, now: membership.clock())
            }
            throw error
        }
        // The time its body ended: one sent slowly counts when it is read.
        let now = membership.clock()
        guard let code = JoinCode(typed: body.code) else {
            try await limits.attempt(player, address: address) {
                try await limits.requireJoinAllowed(player, address: address, now: now)
                await limits.joinFailed(player, address: address, now: now)
            }
            throw Problem.badRequest("invalid-code", "A group code has 6 to 8 letters and digits (no 0, O, 1, I or L).")
        }
        // Counted as an attempt from its body's end to its answer: wrong codes sent at once
        // cannot all pass the limit, and a body sent slowly holds no count.
        let joined = try await limits.attempt(player, address: address) {
            do {
                return try await membership.join(code: code, by: player, gate: limits.joinGate(player, address: address, now: now))
            } catch MembershipError.unknownCode {
                await limits.joinFailed(player, address: address, now: now)
                throw MembershipError.unknownCode
            }
        }
        context.logger.info("group joined", metadata: ["group": "\(joined.group.id)", "player": "\(player.id)"])
        if let membership = joined.membership {
            return try await documents.document(membership, for: player, request: request, contents: joined.contents)
        }
        return try await documents.document(groupId: joined.group.id, for: player, request: request)
    }

    func show(_ request: Request, context: MemberContext) async throws -> GroupEnvelope {
        try await documents.document(context.membership, for: context.player, request: request)
    }

    func removeMember(_ request: Request, context: MemberContext) async throws -> HTTPResponse.Status {
        let player = context.player
        let groupId = context.group.id
        let memberId = try context.parameters.require("playerId")
        try await membership.remove(memberId, from: groupId, by: player)
        context.logger.info("member left", metadata: ["group": "\(groupId)", "player": "\(memberId)", "by": "\(player.id)"])
        return .noContent
    }

    func qrPNG(_ request: Request, context: MemberContext) async throws -> Response {
        let (code, size) = try await qrCode(request, context: context)
        let png = try code.png(scale: code.scale(forPixels: size))
        return Response(
            status: .ok,
            headers: [.contentType: "image/png", .cacheControl: "private, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(bytes: png))
        )
    }

    func qrSVG(_ request: Request, context: MemberContext) async throws -> Response {
        let (code, size) = try await qrCode(request, context: context)
        return Response(
            status: .ok,
            headers: [.contentType: "image/svg+xml", .cacheControl: "private, max-age=3600"],
            body: .init(byteBuffer: ByteBuffer(string: code.svg(pixels: size)))
        )
    }

    // MARK: -

    private func qrCode(_ request: Request, context: MemberContext) async throws -> (QRCode, Int) {
        let group = context.group
        let size = try request.integerParameter("size", in: Self.qrSizes, fallback: Self.qrDefaultSize, code: "invalid-size", unit: " of pixels")
        return (try QRCode(documents.links.url(group.joinCode)), size)
    }
}
