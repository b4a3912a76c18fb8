import Foundation
import GroupieCore
import GroupieStorage
import Logging

/// Stores a group's events and hands them to the hub. Event types (the SSE `event:` field):
/// `member-joined`, `member-left`, `member-renamed`, `photo-added`, `photo-removed`,
/// `task-done`, `task-undone`, `choice-changed`, `mission-completed`, `venue-updated`.
struct GroupEvents: Sendable {
    let database: GroupieDatabase
    let hub: EventHub
    let clock: @Sendable () -> Date
    let logger: Logger

    struct Event: Sendable {
        var type: String
        var fields: [String: String]
    }

    /// Storing an event is not worth failing the request it follows: a failure is logged.
    func emit(groupId: String, _ events: [Event]) async {
        guard !events.isEmpty else { return }
        do {
            let encoded = try events.map { event in
                (type: event.type, data: String(decoding: try JSONSerialization.data(withJSONObject: event.fields, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self))
            }
            hub.publish(try await database.appendEvents(groupId: groupId, encoded, now: clock()))
        } catch {
            logger.error("cannot store events: \(error)", metadata: ["group": "\(groupId)"])
        }
    }

    /// The task and mission events between two states of a group's progress.
    static func progressEvents(before: GroupProgress, after: GroupProgress) -> [Event] {
        var events: [Event] = []
        for (old, new) in zip(before.missions, after.missions) {
            for (oldTask, newTask) in zip(old.tasks, new.tasks) where oldTask.isDone != newTask.isDone {
                events.append(Event(type: newTask.isDone ? "task-done" : "task-undone", fields: ["missionId": new.missionId, "taskId": newTask.taskId]))
            }
            if !old.isComplete, new.isComplete {
                events.append(Event(type: "mission-completed", fields: ["missionId": new.missionId]))
            }
        }
        return events
    }
}
