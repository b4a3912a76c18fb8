import Foundation
import GroupieContent
import GroupieCore
import GroupieStorage
import Hummingbird

/// Messages from staff to the groups of a venue ("We close in 15 minutes"): the page at
/// `/staff/venues/{id}/messages` that sends one to a group or to every group playing, and lists
/// those sent. Each message is a `staff-message` event of every group it reaches, stored with
/// its line of the audit log in one transaction, and shown on the members' phones at once.
struct StaffMessageController {
    let moderation: ModerationService
    let pages: StaffPages

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
        let (audit, events) = try await moderation.message(text, venueId: venue.id, groupId: groupId, by: session.member)
        context.logger.info(
            "staff \(audit.action)", metadata: ["staff": "\(session.member.id)", "venue": "\(venue.id)", "groups": "\(events.count)"]
        )
        return StaffController.redirect(to: .messages(venueId: venue.id, groupId: groupId))
    }

    /// The audit log's actions of messages.
    static let toGroup = "message sent to a group"
    static let toEveryGroup = "message sent to every group"
    static let actions: Set<String> = [toGroup, toEveryGroup]
}

extension ModerationService {
    /// Sends `text` to the group `groupId` of the venue, or to every group playing there: the
    /// events and the audit line in one transaction, then the events to the members' streams.
    func message(_ text: String, venueId: String, groupId: String?, by staff: StaffMember) async throws -> (audit: AuditEntry, events: [GroupEvent]) {
        let audit = AuditEntry(
            at: clock(), staffEmail: staff.email, venueId: venueId,
            action: groupId == nil ? StaffMessageController.toEveryGroup : StaffMessageController.toGroup, subject: groupId, reason: text
        )
        let events: [GroupEvent]
        do {
            events = try await database.sendStaffMessage(text, venueId: venueId, groupId: groupId, now: audit.at, audit: audit)
        } catch ModerationError.groupNotFound {
            throw StaffController.groupNotFound
        }
        hub.publish(events)
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
