import Foundation
import GroupieCore
import GroupieStorage
import Logging

/// Stores events of a group that follow a change already made (a member left, a collage was
/// drawn) and hands them to the hub. Events of photos, picks and joins are stored by the
/// database in the change's own transaction instead (`PhotoRules`, `joinGroup`).
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
