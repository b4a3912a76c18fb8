import Foundation
import GroupieCore
import GroupieStorage
import Logging
import Tracing

/// What follows a commit, written once. Every change of what is stored commits its events in
/// its own transaction and hands them here, and nothing else publishes:
/// - the events reach the streams of the group's members (and the staff's live pages);
/// - the work their kinds ask for starts after the answer: a change of the task photos a
///   mission shows, or of whether it is complete, makes the group's collages again;
/// - staff hear of what tells the group nothing: a photo held for review, a group made.
///
/// The events other instances committed come through `relay` (from `EventRelay`), which only
/// publishes: the instance that committed them did the rest.
struct Committed: Sendable {
    let hub: EventHub
    let database: any GroupieStore
    let background: BackgroundWork
    /// Makes a group's collages again; none for the collage service itself, whose events
    /// (`collage-ready`, `collage-removed`) change no collage.
    let redraw: (@Sendable (String) async -> Void)?
    let clock: @Sendable () -> Date
    let logger: Logger

    init(hub: EventHub, database: any GroupieStore, background: BackgroundWork, clock: @escaping @Sendable () -> Date, logger: Logger) {
        self.init(hub: hub, database: database, background: background, redraw: nil, clock: clock, logger: logger)
    }

    private init(
        hub: EventHub, database: any GroupieStore, background: BackgroundWork, redraw: (@Sendable (String) async -> Void)?,
        clock: @escaping @Sendable () -> Date, logger: Logger
    ) {
        (self.hub, self.database, self.background, self.redraw, self.clock, self.logger) = (hub, database, background, redraw, clock, logger)
    }

    /// The same, making collages again with `collages`.
    func redrawing(_ collages: CollageService) -> Committed {
        Committed(hub: hub, database: database, background: background, redraw: { await collages.refreshNow(groupId: $0) }, clock: clock, logger: logger)
    }

    /// Publishes `events`, then starts what they ask for. `also`: groups whose collages change
    /// beyond what their events say (an erased player's photos in groups they left). `first`:
    /// work the collages wait for (a new photo's subject), run before them after the answer.
    func publish(_ events: [GroupEvent], also: some Sequence<String> = [String](), first: (@Sendable () async -> Void)? = nil) {
        // The work after the answer is queued in the request's trace, beside this span, not in it.
        withSpan("events publish") { span in
            span.attributes["groupie.events"] = events.count
            hub.publish(events)
        }
        let groups = Set(also).union(events.filter(Self.changesCollages).map(\.groupId)).sorted()
        guard first != nil || !groups.isEmpty else { return }
        background.enqueue { [redraw] in
            await first?()
            guard let redraw else { return }
            for groupId in groups { await redraw(groupId) }
        }
    }

    /// Whether the collages of the event's group may change: a task's photo came or went or
    /// was chosen, a mission was completed (by an answer too), or the group closed or opened.
    static func changesCollages(_ event: GroupEvent) -> Bool {
        switch event.kind {
        case .photoAdded, .photoRemoved: event.fields["taskId"] != nil
        case .choiceChanged, .missionCompleted, .groupClosed, .groupReopened: true
        default: false
        }
    }

    /// Events another instance committed: published here, nothing more.
    static func relay(_ events: [GroupEvent], to hub: EventHub) {
        hub.publish(events)
    }

    /// Stores events that tell of no stored change (the venue's mission file was edited) and
    /// publishes them. Storing an event is not worth failing the request it follows: a failure
    /// is logged.
    func store(groupId: String, _ events: [GroupEventPayload]) async {
        guard !events.isEmpty else { return }
        do {
            publish(try await database.appendEvents(groupId: groupId, events, now: clock()))
        } catch {
            logger.error("cannot store events: \(error)", metadata: ["group": "\(groupId)"])
        }
    }

    /// Staff's live pages: the group's photos held for review changed (one held, shared or kept
    /// hidden), which tells the group nothing.
    func reviewChanged(groupId: String) {
        hub.reviewChanged(groupId: groupId)
    }

    /// Staff's live pages: a group was made. Its creator's joining is no event of the new group.
    func groupCreated(groupId: String) {
        hub.groupCreated(groupId: groupId)
    }

    /// Ends the player's streams of the group, which have had their `member-left` by then.
    func endStreams(groupId: String, playerId: String) {
        hub.endStreams(groupId: groupId, playerId: playerId)
    }
}

extension GroupEvent {
    /// The event's JSON object of strings (every payload's fields are strings).
    var fields: [String: String] {
        (try? JSONDecoder().decode([String: String].self, from: Data(data.utf8))) ?? [:]
    }
}
