import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import Hummingbird
import ServiceLifecycle

/// The venue page's live feed: the events of the venue's groups as Server-Sent Events, from the
/// same hub that feeds the phones, `review-changed` when photos held for review change and
/// `group-created` when one of its groups is made, on this instance or another (`EventHub`'s
/// staff notices, which the store carries between instances). Events are not replayed: the
/// page is drawn from the database and only needs to know that something changed.
struct StaffLiveController {
    let database: any GroupieStore
    let catalog: VenueCatalog
    let hub: EventHub

    func addRoutes(to staff: RouterGroup<StaffContext>) {
        staff.get("venues/{venueId}/events", use: stream)
    }

    func stream(_ request: Request, context: StaffContext) async throws -> Response {
        let session = context.session
        let venueId = try context.parameters.require("venueId")
        guard session.member.may(.view, at: venueId), catalog.venue(id: venueId) != nil else { throw StaffController.venueNotFound }
        let database = self.database, hub = self.hub
        let body = ResponseBody { writer in
            try await hub.withSubscription(groupId: EventHub.everyGroup, playerId: "staff:" + session.member.id) { subscription in
                // Which venue each group plays, asked once per group.
                var venues: [String: String] = [:]
                try await writer.write(ByteBuffer(string: "retry: 5000\n\n"))
                try await withGracefulShutdownHandler {
                    for await message in subscription.stream {
                        let kind: String, groupId: String
                        switch message {
                        case .event(let event): (kind, groupId) = (event.kind.rawValue, event.groupId)
                        case .reviewChanged(let group): (kind, groupId) = ("review-changed", group)
                        case .groupCreated(let group): (kind, groupId) = ("group-created", group)
                        case .heartbeat:
                            try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                            continue
                        }
                        if venues[groupId] == nil {
                            venues[groupId] = try await database.group(id: groupId)?.venueId ?? ""
                        }
                        guard venues[groupId] == venueId else { continue }
                        try await writer.write(ByteBuffer(string: "event: \(kind)\ndata: {\"groupId\":\"\(groupId)\"}\n\n"))
                    }
                } onGracefulShutdown: {
                    subscription.continuation.finish()
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
}
