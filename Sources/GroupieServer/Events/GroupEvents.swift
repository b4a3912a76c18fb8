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
    /// (Photo events are stored in the photo's own transaction instead; see `photoEvents`.)
    func emit(groupId: String, _ events: [Event]) async {
        guard !events.isEmpty else { return }
        do {
            hub.publish(try await database.appendEvents(groupId: groupId, Self.encode(events), now: clock()))
        } catch {
            logger.error("cannot store events: \(error)", metadata: ["group": "\(groupId)"])
        }
    }

    static func encode(_ events: [Event]) -> [(type: String, data: String)] {
        events.map { event in
            let data = (try? JSONSerialization.data(withJSONObject: event.fields, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
            return (event.type, String(decoding: data, as: UTF8.self))
        }
    }

    /// The events of a photo added or removed (`type`), with the tasks and missions it
    /// completed or undid in `venue`; stored by the database in the photo's transaction,
    /// so that a photo never exists without the event that announced it.
    static func photoEvents(_ type: String, venue: Venue?) -> GroupieDatabase.PhotoEvents {
        { photo, before, after in
            var fields = ["photoId": photo.id, "photographerId": photo.photographerId, "photographerName": photo.photographerName]
            fields["missionId"] = photo.missionId
            fields["taskId"] = photo.taskId
            var events = [Event(type: type, fields: fields)]
            if let venue {
                events += progressEvents(
                    before: GroupProgress(venue: venue, doneTasks: before.done),
                    after: GroupProgress(venue: venue, doneTasks: after.done)
                )
            }
            return encode(events)
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
