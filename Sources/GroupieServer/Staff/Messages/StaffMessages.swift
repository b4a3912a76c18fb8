import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import Hummingbird
import Logging

/// Messages from staff to the groups of a venue ("We close in 15 minutes"): the page at
/// `/staff/venues/{id}/messages` that sends one to a group or to every group playing, and lists
/// those sent. Each message is a `staff-message` event of every group it reaches, stored with
/// its line of the audit log in one transaction, and shown on the members' phones at once.
struct StaffMessageController {
    let moderation: ModerationService
    let pages: StaffPages
    let limits: StaffMessageLimits

    private var database: any GroupieStore { moderation.database }

    func addRoutes(to signedIn: RouterGroup<StaffContext>) {
        signedIn.get("venues/{venueId}/messages", use: page)
        signedIn.post("venues/{venueId}/messages", use: send)
    }

    /// The form, the group asked for (`?group=`) chosen, and the messages sent lately.
    func page(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, venue) = try context.venue(in: moderation.catalog)
        let groups = try await database.playingGroups(venueId: venue.id, limit: 500)
        let sent = try await database.auditLog(venueIds: [venue.id], staffEmail: session.member.email, limit: 500)
            .filter { $0.venueId == venue.id && Self.actions.contains($0.action) }
        return pages.messages(
            venue, groups: groups, chosen: request.uri.queryParameters.get("group"), sent: Array(sent.prefix(50)),
            mayModerate: session.member.may(.moderate, at: venue.id), session: session
        )
    }

    func send(_ request: Request, context: StaffContext) async throws -> Response {
        let (session, venue) = try context.venue(in: moderation.catalog)
        let form = try await StaffForm(request, context: context)
        try form.requireToken(of: session)
        guard session.member.may(.moderate, at: venue.id) else { throw StaffController.notAllowed(session.member.role) }
        let text = try form.messageText()
        let groupId = form["group"].flatMap { $0.isEmpty ? nil : $0 }
        let (audit, events) = try await limits.sending(by: session.member, venueId: venue.id, now: moderation.clock()) {
            try await moderation.message(text, venueId: venue.id, groupId: groupId, by: session.member)
        }
        context.logger.info(
            "staff \(audit.action)", metadata: ["staff": "\(session.member.id)", "venue": "\(venue.id)", "groups": "\(events.count)"]
        )
        return StaffController.redirect(to: .messages(venueId: venue.id, groupId: groupId))
    }

    /// The audit log's actions of messages.
    static let actions: Set<String> = [AuditAction.messageToGroup.rawValue, AuditAction.messageToEveryGroup.rawValue]
}

extension ModerationService {
    /// Sends `text` to the group `groupId` of the venue, or to every group playing there: the
    /// events and the audit line in one transaction, then the events to the members' streams.
    func message(_ text: String, venueId: String, groupId: String?, by staff: StaffMember) async throws -> (audit: AuditEntry, events: [GroupEvent]) {
        let audit = AuditEntry(
            at: clock(), staffEmail: staff.email, venueId: venueId,
            action: groupId == nil ? AuditAction.messageToEveryGroup : .messageToGroup, subject: groupId, reason: text
        )
        let events: [GroupEvent]
        do {
            events = try await database.sendStaffMessage(text, venueId: venueId, groupId: groupId, now: audit.at, audit: audit)
        } catch ModerationError.groupNotFound {
            throw StaffController.groupNotFound
        }
        committed.publish(events)
        return (audit, events)
    }
}

extension StaffForm {
    /// The message's text (`text`), as `StaffMessage` keeps it; a clear refusal otherwise.
    func messageText() throws -> String {
        do {
            return try StaffMessage.text(self["text"] ?? "")
        } catch .empty {
            throw Problem(.unprocessableContent, code: "invalid-message", detail: "Write the message: it is empty.")
        } catch .tooLong {
            throw Problem(
                .unprocessableContent, code: "invalid-message",
                detail: "The message is too long: give at most \(StaffMessage.maximumLength) characters."
            )
        }
    }
}

/// How many messages a member of staff sends to a venue's groups: every group's stream replays
/// each message to a phone that comes back, so a burst would flood them. Each message sent is
/// counted, per member of staff and venue, in the store (shared by instances); the page says
/// the bounds, and a message past them gets 429 `too-many-messages` with `Retry-After`.
struct StaffMessageLimits: Sendable {
    static let perMinute = 6
    static let perHour = 60

    private let minute: AttemptLimiter
    private let hour: AttemptLimiter

    init(store: any GroupieStore, logger: Logger) {
        minute = AttemptLimiter(store: store, scope: "staff-message", limit: Self.perMinute, window: .seconds(60), logger: logger)
        hour = AttemptLimiter(store: store, scope: "staff-message-60", limit: Self.perHour, window: .seconds(3600), logger: logger)
    }

    func sending<T: Sendable>(by staff: StaffMember, venueId: String, now: Date, _ send: () async throws -> T) async throws -> T {
        let key = "\(staff.id):\(venueId)"
        return try await minute.attempting(key) {
            let waits = [await minute.retryAfter(key, now: now), await hour.retryAfter(key, now: now)].compactMap { $0 }
            if let seconds = waits.max() {
                throw Problem(
                    .tooManyRequests, code: "too-many-messages",
                    detail: "You have sent \(Self.perMinute) messages this minute or \(Self.perHour) this hour; send the next in \(seconds) seconds.",
                    headers: [.retryAfter: "\(seconds)"]
                )
            }
            let sent = try await send()
            await minute.recordFailure(key, now: now)
            await hour.recordFailure(key, now: now)
            return sent
        }
    }
}
