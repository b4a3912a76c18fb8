import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import Hummingbird
import ServiceLifecycle

/// The venue page's live feed: the events of the venue's groups as Server-Sent Events, from the
/// same hub that feeds the phones. Events are not replayed: the page is drawn from the database
/// and only needs to know that something changed.
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
                        switch message {
                        case .event(let event):
                            if venues[event.groupId] == nil {
                                venues[event.groupId] = try await database.group(id: event.groupId)?.venueId ?? ""
                            }
                            guard venues[event.groupId] == venueId else { continue }
                            try await writer.write(ByteBuffer(string: "event: \(event.kind.rawValue)\ndata: {\"groupId\":\"\(event.groupId)\"}\n\n"))
                        case .heartbeat:
                            try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                        }
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
