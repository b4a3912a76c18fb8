import Foundation
import GroupieCore
import GroupieStorage
import Logging

/// Stores events that tell of no stored change (the venue's mission file was edited) and hands
/// them to the hub. Every change of what is stored, a group's or a collage's, commits its events
/// in its own transaction instead, and the store returns them to be published.
struct GroupEvents: Sendable {
    let database: any GroupieStore
    let hub: EventHub
    let clock: @Sendable () -> Date
    let logger: Logger

    /// Storing an event is not worth failing the request it follows: a failure is logged.
    func emit(groupId: String, _ events: [GroupEventPayload]) async {
        guard !events.isEmpty else { return }
        do {
            hub.publish(try await database.appendEvents(groupId: groupId, events, now: clock()))
        } catch {
            logger.error("cannot store events: \(error)", metadata: ["group": "\(groupId)"])
        }
    }
}
