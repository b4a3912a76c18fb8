import Foundation
import GroupieCore
import GroupieStorage
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import NIOCore

/// Finds the player behind the request's bearer token, on the routes that use one. A request
/// without a good token goes on without one: routes that need a player say so with
/// `PlayerRequired`; those that also take a signed URL or a stream token decide themselves.
struct PlayerAuthenticator: AuthenticatorMiddleware {
    typealias Context = GroupieRequestContext
    let database: any GroupieStore

    func authenticate(request: Request, context: Context) async throws -> Player? {
        guard case .wellFormed(let hash) = BearerToken.read(request.headers) else { return nil }
        return try await database.player(tokenHash: hash)
    }
}

/// 401, saying what is wrong with the token, unless `PlayerAuthenticator` found a player.
struct PlayerRequired: RouterMiddleware {
    typealias Context = GroupieRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.identity == nil else { return try await next(request, context) }
        throw Self.refusal(request.headers)
    }

    /// Why a request has no player.
    static func refusal(_ headers: HTTPFields) -> Problem {
        switch BearerToken.read(headers) {
        case .missing: BearerToken.missing
        case .malformed: BearerToken.malformed
        case .wellFormed: BearerToken.unknown
        }
    }
}

/// For routes under `groups/{groupId}`: the player of the bearer token (401 as `PlayerRequired`
/// says without one) and their membership of the group, found in one read; 404 unless the
/// player is a member, as for a group that does not exist, so that group ids reveal nothing.
/// Puts both in the context, from which the route's `MemberContext` takes them.
struct GroupMemberRequired: RouterMiddleware {
    typealias Context = GroupieRequestContext
    let database: any GroupieStore

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let (player, membership) = try await Self.member(request, groupId: try context.parameters.require("groupId"), database: database)
        var context = context
        context.identity = player
        context.membership = membership
        return try await next(request, context)
    }

    /// The player of the request's bearer token and their membership of the group, or the
    /// refusal: 401 without a known token, 404 for anyone but a member.
    static func member(_ request: Request, groupId: String, database: any GroupieStore) async throws -> (Player, Membership) {
        guard case .wellFormed(let hash) = BearerToken.read(request.headers),
            let found = try await database.member(tokenHash: hash, groupId: groupId)
        else { throw PlayerRequired.refusal(request.headers) }
        guard let membership = found.membership else { throw Problem.groupNotFound }
        return (found.player, membership)
    }
}

extension GroupieRequestContext {
    /// The player, where a route also takes a signed URL instead of the token.
    func player(of request: Request) throws -> Player {
        guard let identity else { throw PlayerRequired.refusal(request.headers) }
        return identity
    }
}

/// The context of routes for a player with a known token: the player is there, not optional,
/// so that a handler that needs one cannot be registered where there may be none.
struct PlayerContext: ChildRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    private let held: Held<Player>

    var player: Player { held.value }

    /// `PlayerRequired` has refused a request without a player, saying what is wrong with its token.
    init(context: GroupieRequestContext) throws {
        guard let player = context.identity else { throw BearerToken.missing }
        self.coreContext = context.coreContext
        self.remoteAddress = context.remoteAddress
        self.held = Held(player)
    }

    var requestDecoder: GroupieRequestDecoder { GroupieRequestDecoder() }
    var responseEncoder: JSONEncoder { GroupieRequestContext.jsonEncoder() }
}

/// The context of routes under `groups/{groupId}` for the group's members: the player and their
/// membership of the group, read for each request by `GroupMemberRequired`, so that a member
/// removed meanwhile is refused at once.
struct MemberContext: ChildRequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    private let held: Held<(player: Player, membership: Membership)>

    var player: Player { held.value.player }
    var membership: Membership { held.value.membership }
    var group: Group { held.value.membership.group }

    /// `GroupMemberRequired` has refused anyone but a member: 401 without a known token, 404 else.
    init(context: GroupieRequestContext) throws {
        guard let player = context.identity else { throw BearerToken.missing }
        guard let membership = context.membership else { throw Problem.groupNotFound }
        self.coreContext = context.coreContext
        self.remoteAddress = context.remoteAddress
        self.held = Held((player, membership))
    }

    var requestDecoder: GroupieRequestDecoder { GroupieRequestDecoder() }
    var responseEncoder: JSONEncoder { GroupieRequestContext.jsonEncoder() }
}

extension RouterMethods<GroupieRequestContext> {
    /// Routes that know the player when the request has a good token, and work without one
    /// (signed URLs, stream tokens).
    func identified(_ database: any GroupieStore) -> RouterGroup<GroupieRequestContext> {
        group().add(middleware: PlayerAuthenticator(database: database))
    }

    /// Routes for a player with a known token.
    func players(_ database: any GroupieStore) -> RouterGroup<PlayerContext> {
        identified(database).add(middleware: PlayerRequired()).group(context: PlayerContext.self)
    }

    /// Routes under `groups/{groupId}` for the group's members.
    func members(_ database: any GroupieStore) -> RouterGroup<MemberContext> {
        group("groups/{groupId}").add(middleware: GroupMemberRequired(database: database)).group(context: MemberContext.self)
    }
}
