import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import Hummingbird

/// `POST /players` and `GET/PATCH/DELETE /me`.
struct PlayerController {
    let database: any GroupieStore
    let links: JoinLinks
    let membership: MembershipService
    let limits: JoinLimits

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        router.post("players", use: create)
        router.players(database).get("me", use: me).patch("me", use: update).delete("me", use: erase)
    }

    func create(_ request: Request, context: GroupieRequestContext) async throws -> EditedResponse<CreatedPlayer> {
        let key = "players/" + limits.clientAddress.of(request, context: context)
        try await limits.creationsByAddress.requireCreationAllowed(key, what: "players", now: membership.clock())
        let body = try await request.decode(as: NewPlayer.self, context: context)
        // The time its body ended: one sent slowly counts when it is read.
        let now = membership.clock()
        let name = try PlayerInput.name(body.name)
        let language = try body.lang.map(PlayerInput.language)
        let (player, token) = try await limits.creationsByAddress.creating(key, what: "players", now: now) {
            let (token, hash) = BearerToken.new()
            return (try await database.createPlayer(name: name, language: language, tokenHash: hash, now: now), token)
        }
        context.logger.info("player created", metadata: ["player": "\(player.id)"])
        return EditedResponse(status: .created, response: CreatedPlayer(player: PlayerDocument(player), token: token))
    }

    func me(_ request: Request, context: PlayerContext) async throws -> Me {
        let player = context.player
        let group = try await database.currentGroup(of: player.id)
        return Me(player: PlayerDocument(player), group: group.map(links.summary))
    }

    func update(_ request: Request, context: PlayerContext) async throws -> Me {
        let player = context.player
        let changes = try await request.decode(as: PlayerChanges.self, context: context)
        let name = try changes.name.map { try PlayerInput.name($0) }
        let language: String?? = try changes.lang.map { try $0.map(PlayerInput.language) }
        guard let updated = try await membership.update(player, name: name, language: language) else {
            throw BearerToken.unauthorized("The player was erased.")
        }
        let group = try await database.currentGroup(of: player.id)
        return Me(player: PlayerDocument(updated.player), group: group.map(links.summary))
    }

    func erase(_ request: Request, context: PlayerContext) async throws -> HTTPResponse.Status {
        let player = context.player
        try await membership.erase(player)
        context.logger.info("player erased", metadata: ["player": "\(player.id)"])
        return .noContent
    }
}
