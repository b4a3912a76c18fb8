import Foundation
import GroupieStorage
import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// What a staff form sent, kept for the error page of its request: `StaffForm` writes its fields
/// here as it reads them, so that a refused form can be offered again with what was typed.
final class StaffFormMemory: Sendable {
    private let stored = Mutex<StaffFormFields?>(nil)

    @TaskLocal static var current: StaffFormMemory?

    var fields: StaffFormFields? { stored.withLock { $0 } }

    func keep(_ fields: StaffFormFields) { stored.withLock { $0 = fields } }
}

/// The console's answer to a refusal (a stale form, a refused reason, a page that does not exist,
/// a session that ended): a page of the console saying what happened, with a way back and, for
/// a form, the form again with what was typed and the session's current token. The JSON API
/// keeps its problem documents; only `/staff` answers with these pages.
struct StaffErrorPages: Sendable {
    let pages: StaffPages

    struct View: Sendable {
        struct Field: Sendable {
            let name: String
            let label: String
            let value: String
            let visible: Bool
        }
        let detail: String
        let code: String
        let back: String
        let backLabel: String
        /// The form again, sent to the same address with the session's token.
        let resend: String?
        /// The confirmation the form lacked, asked again.
        let confirm: Bool
        /// What was typed, to copy when the form cannot be sent again (no session).
        let typed: [Field]
        let fields: [Field]
        let signIn: String?
    }

    /// Whether a request's refusal is answered with a page: a path of the console, not a file it
    /// serves to scripts (the live event stream, CSV tables, images).
    static func answersWithPage(_ request: Request) -> Bool {
        let path = request.uri.path
        guard path == "/staff" || path.hasPrefix("/staff/") else { return false }
        return !path.hasSuffix("/events")
    }

    /// The problem a thrown error stands for, when it is a client's (4xx); nil for faults of the
    /// server, which `ProblemMiddleware` answers and logs as it does everywhere.
    static func problem(of error: any Error, request: Request) -> Problem? {
        let problem: Problem? =
            if let refusal = Problem(refusal: error) { refusal }
            else if let problem = error as? Problem { problem }
            else if let error = error as? HTTPError { ProblemMiddleware<GroupieRequestContext>.problem(error, request: request) }
            else { nil }
        guard let problem, (400..<500).contains(problem.status.code) || problem.status == .serviceUnavailable else { return nil }
        return problem
    }

    func page(_ problem: Problem, request: Request, session: StaffSession?, fields: StaffFormFields?) -> Response {
        let text = (fields?.text ?? [:]).filter { !Self.neverShown.contains($0.key) && $0.key != "confirm" }.sorted { $0.key < $1.key }.map { name, value in
            View.Field(name: name, label: Self.label(name), value: value, visible: Self.labels[name] != nil)
        }
        // The boxes ticked of a list go again as they came.
        let lists = (fields?.lists ?? [:]).sorted { $0.key < $1.key }.flatMap { name, values in
            values.map { View.Field(name: name + "[]", label: Self.label(name), value: $0, visible: false) }
        }
        let kept = text + lists
        let isForm = request.method == .post && fields != nil
        let back = Self.back(request)
        let view = View(
            detail: problem.detail, code: problem.code, back: back?.path ?? StaffURL.home.path,
            backLabel: back?.label ?? "Back to the console",
            resend: isForm && session != nil && !Self.notResent.contains(problem.code) ? request.uri.path : nil,
            confirm: problem.code == StaffForm.confirmationRequired.code,
            typed: session == nil ? kept.filter(\.visible) : [], fields: kept,
            signIn: session == nil ? StaffURL.login.path : nil
        )
        var response = pages.page("staff-error", title: Self.title(problem), session: session, status: problem.status, view)
        for field in problem.headers { response.headers.append(field) }
        return response
    }

    static func title(_ problem: Problem) -> String {
        switch (problem.status.code, problem.code) {
        case (_, "csrf-token-mismatch"): "This form was out of date"
        case (401, _): "You are signed out"
        case (403, _): "Not allowed"
        case (404, _): "Not found"
        case (413, _): "Too much to send"
        case (422, _), (400, _): "Please check what you typed"
        case (409, _), (410, _): "That has changed in the meantime"
        case (429, _): "Too many attempts"
        default: "That could not be done"
        }
    }

    /// Fields never written back into a page: tokens and passwords.
    static let neverShown: Set<String> = ["csrf", "password", "newPassword", "currentPassword", "repeatPassword"]
    /// Refusals that sending the same form again cannot mend.
    static let notResent: Set<String> = ["staff-role-not-allowed", "group-not-found", "photo-not-found", "venue-not-found", "staff-not-found"]

    static let labels = [
        "reason": "Reason", "email": "E-mail address", "role": "Role", "venues": "Venues", "language": "Language", "count": "How many",
    ]

    static func label(_ name: String) -> String { labels[name] ?? name }

    /// Back to the page the form was on (its `Referer`, when it is a page of the console), else
    /// to the console's first page.
    static func back(_ request: Request) -> (path: String, label: String)? {
        guard request.method == .post, let referer = request.headers[.referer], let url = URLComponents(string: referer) else { return nil }
        let path = url.path
        guard path == "/staff" || path.hasPrefix("/staff/"), path != StaffURL.login.path else { return nil }
        return (path + (url.percentEncodedQuery.map { "?" + $0 } ?? ""), "Back to the page you were on")
    }
}

/// Answers the console's refusals with `StaffErrorPages`: on the `/staff` group, inside
/// `StaffAuthenticator`, so that the page has the session's bar and token.
extension StaffAuthenticator {
    func answer(_ error: any Error, request: Request, context: Context, memory: StaffFormMemory) async throws -> Response {
        guard StaffErrorPages.answersWithPage(request), let problem = StaffErrorPages.problem(of: error, request: request) else { throw error }
        context.logger.notice(
            "\(problem.status.code) \(problem.code): \(problem.detail)", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)"]
        )
        var fields = memory.fields
        if fields == nil, request.method == .post, problem.code == StaffRequired.signInRequired.code {
            // Signed out before the form was read: read it now, to show what was typed.
            fields = (try? await request.body.collect(upTo: StaffForm.maximumBytes)).flatMap { try? StaffFormFields.decode(String(buffer: $0)) }
        }
        return errorPages.page(problem, request: request, session: context.staffSession, fields: fields)
    }
}
