import Foundation
import GroupieStorage
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle

/// `GET /groups/{groupId}/events`: the group's events as Server-Sent Events, resumable with
/// `Last-Event-ID`, and the short-lived stream token that `EventSource` (which cannot send
/// headers) authenticates with instead of the bearer token.
struct EventController {
    static let tokenLifetime: TimeInterval = 300
    static let replayBatch = 500

    let database: any GroupieStore
    let hub: EventHub
    let signer: ImageURLSigner
    let streamTokens: StreamTokens
    let streams: StreamAllowance
    let clock: @Sendable () -> Date

    struct StreamToken: ResponseEncodable, Sendable {
        var token: String
        var expiresAt: Date
        /// The group's latest event now: what a stream replays up to it is not news.
        var latestEventId: String
    }

    func addRoutes(to router: some RouterMethods<GroupieRequestContext>) {
        router.members(database).post("events/token", use: token)
        // A stream token or the bearer token, read by the route itself (a bearer token with the
        // membership, in one read).
        router.get("groups/{groupId}/events", use: stream)
    }

    func token(_ request: Request, context: MemberContext) async throws -> StreamToken {
        let player = context.player, member = context.membership, groupId = member.group.id
        let expires = Int(clock().timeIntervalSince1970 + Self.tokenLifetime)
        let token = "\(player.id).\(expires).\(signer.mac("stream/\(groupId)/\(player.id)/\(expires)"))"
        return StreamToken(token: token, expiresAt: Date(timeIntervalSince1970: TimeInterval(expires)), latestEventId: "\(member.version)")
    }

    func stream(_ request: Request, context: GroupieRequestContext) async throws -> Response {
        let groupId = try context.parameters.require("groupId")
        let playerId: String
        if let signed = try streamTokens.signedPlayer(request, groupId: groupId) {
            guard try await database.membership(playerId: signed, groupId: groupId) != nil else { throw Problem.groupNotFound }
            playerId = signed
        } else {
            playerId = try await GroupMemberRequired.member(request, groupId: groupId, database: database).0.id
        }
        let lastId = (request.headers[.lastEventId] ?? request.uri.queryParameters["lastEventId"].map(String.init)).flatMap { Int($0) } ?? 0
        let place: StreamAllowance.Place
        do {
            place = try streams.take(groupId: groupId, playerId: playerId)
        } catch {
            context.logger.notice("event stream refused: \(streams.open) open", metadata: ["group": "\(groupId)", "player": "\(playerId)"])
            throw error
        }

        let database = self.database, hub = self.hub
        let body = ResponseBody { writer in
            // The stream's place is held as long as its body is: given back when the stream
            // ends, or when its response is dropped unwritten.
            defer { withExtendedLifetime(place) {} }
            // Subscribe before reading what is stored, so that nothing falls between the two.
            try await hub.withSubscription(groupId: groupId, playerId: playerId) { subscription in
                // The player's newer streams past their bound end this one.
                place.onEnd { subscription.continuation.finish() }
                // A membership that ended between the check above and the subscription ends the stream now.
                guard let membership = try await database.membership(playerId: playerId, groupId: groupId) else {
                    try await writer.finish(nil)
                    return
                }
                var sent = lastId
                try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
                // An id the group has not reached (a phone that played before the data was
                // restored from a backup) would hide every event up to it: the phone is told to
                // read the group afresh and to follow it from the group's own latest id.
                if lastId > membership.version {
                    context.logger.notice("event stream asked from beyond the group's latest event", metadata: ["lastEventId": "\(lastId)", "latest": "\(membership.version)"])
                    try await writer.write(ByteBuffer(string: "event: resync\ndata: {\"latestEventId\":\(membership.version)}\n\n"))
                    try await writer.finish(nil)
                    return
                }
                while true {
                    let missed = try await database.events(groupId: groupId, after: sent, limit: Self.replayBatch)
                    for event in missed {
                        try await writer.write(Self.frame(event))
                        sent = event.seq
                    }
                    if missed.count < Self.replayBatch { break }
                }
                // When the server shuts down the stream ends at once; the phone reconnects to the next
                // server with its last id and misses nothing.
                try await withGracefulShutdownHandler {
                    for await message in subscription.stream {
                        switch message {
                        case .event(let event) where event.seq > sent:
                            // Events of concurrent changes, or of another instance, can be handed
                            // over out of order: what is missing before this one is read first.
                            if event.seq > sent + 1 {
                                for missed in try await database.events(groupId: groupId, after: sent, limit: event.seq - sent - 1) {
                                    try await writer.write(Self.frame(missed))
                                    sent = missed.seq
                                }
                            }
                            try await writer.write(Self.frame(event))
                            sent = event.seq
                        case .event, .reviewChanged, .groupCreated:
                            continue
                        case .heartbeat:
                            try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                        }
                    }
                } onGracefulShutdown: {
                    subscription.continuation.finish()
                }
                if subscription.overflowed {
                    try await writer.write(ByteBuffer(string: "event: resync\ndata: {}\n\n"))
                }
                try await writer.finish(nil)
            }
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/event-stream", .cacheControl: "no-cache", .init("X-Accel-Buffering")!: "no"],
            body: body
        )
    }

    static func frame(_ event: GroupEvent) -> ByteBuffer {
        ByteBuffer(string: "id: \(event.seq)\nevent: \(event.kind.rawValue)\ndata: \(event.data)\n\n")
    }
}

/// The short-lived tokens that let a browser read a group's event stream or download its
/// album with a plain URL, where it cannot send the bearer header.
struct StreamTokens: Sendable {
    let signer: ImageURLSigner
    let clock: @Sendable () -> Date

    /// The player, from a stream token (`?token=`) or the bearer header.
    func player(_ request: Request, context: GroupieRequestContext, groupId: String) throws -> String {
        try signedPlayer(request, groupId: groupId) ?? context.player(of: request).id
    }

    /// The player of the request's stream token (`?token=`); nil when it has none.
    func signedPlayer(_ request: Request, groupId: String) throws -> String? {
        guard let token = request.uri.queryParameters["token"].map(String.init) else { return nil }
        let parts = token.split(separator: ".")
        guard parts.count == 3, let expires = Int(parts[1]), Double(expires) > clock().timeIntervalSince1970,
            ImageURLSigner.same(signer.mac("stream/\(groupId)/\(parts[0])/\(expires)"), String(parts[2]))
        else {
            throw BearerToken.unauthorized("The stream token is not valid or has expired; ask for a new one.")
        }
        return String(parts[0])
    }
}

extension HTTPField.Name {
    static let lastEventId = Self("Last-Event-ID")!
}
