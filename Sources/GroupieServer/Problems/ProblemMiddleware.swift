import Foundation
import GroupieStorage
import HTTPTypes
import Hummingbird
import Logging

/// What every request passes through: its answer carries the request id that every log line
/// of the request carries too (`X-Request-Id`), so that a report from a phone can be matched
/// with the server's log; every error becomes a problem document and is logged, client
/// mistakes at notice level with their code, server faults at error level without leaking
/// details to the client; and a path the server has under other methods (TRACE and OPTIONS
/// included) answers 405 with `Allow` instead of 404, as HTTP asks and the API document promises.
///
/// One middleware rather than one for each: every layer of middleware is an async frame that a
/// connection's task keeps for as long as the connection lives, which for an open event stream
/// is the whole visit.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The routes, filled in once they are all registered (the middleware comes before them).
    let routes: KnownRoutes
    /// The console's page for a refused `/staff` address that no route has (the console's
    /// routes answer their own refusals with pages, inside `StaffAuthenticator`).
    var staffPages: StaffErrorPages? = nil
    /// Told of each error that ends a request, with the request's logger: the store learns from
    /// it whether its database is damaged.
    var onFault: (@Sendable (any Error, Logger) -> Void)? = nil

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            response = try answer(methodNotAllowed(error, request: request) ?? error, request: request, context: context)
        }
        response.headers[.requestId] = context.id
        context.logger.debug("\(request.method) \(request.uri.path) \(response.status.code)")
        return response
    }

    private func answer(_ error: any Error, request: Request, context: Context) throws -> Response {
        onFault?(error, context.logger)
        if let staffPages, StaffErrorPages.answersWithPage(request), let problem = StaffErrorPages.problem(of: error, request: request) {
            log(problem, request: request, context: context)
            return staffPages.page(problem, request: request, session: nil, fields: nil)
        }
        if let refusal = Problem(refusal: error) {
            // A server-side refusal (a full disk) is logged with its cause: which write found no room.
            log(refusal, request: request, context: context, cause: refusal.status.code >= 500 ? error : nil)
            return try refusal.response(from: request, context: context)
        }
        switch error {
        case let problem as Problem:
            log(problem, request: request, context: context)
            return try problem.response(from: request, context: context)
        case let error as HTTPError:
            let problem = Self.problem(error, request: request)
            log(problem, request: request, context: context)
            return try problem.response(from: request, context: context)
        case let error as any HTTPResponseError where error.status.code < 500:
            let problem = Problem(error.status, code: Self.code(for: error.status), detail: "\(error)")
            log(problem, request: request, context: context)
            return try problem.response(from: request, context: context)
        case is StoreBusy:
            context.logger.warning("request gave up on rows other changes kept taking: \(error)", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)"])
            return try Self.databaseBusy.response(from: request, context: context)
        case is StoreUnavailable:
            context.logger.error("request failed, the database is unreachable: \(error)", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)"])
            return try Self.databaseUnavailable.response(from: request, context: context)
        default:
            context.logger.error("request failed: \(error)", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)"])
            let problem = Problem(.internalServerError, code: "internal-error", detail: "Something went wrong on the server; it has been logged with this request's id.")
            return try problem.response(from: request, context: context)
        }
    }

    /// While PostgreSQL restarts or the network to it is down: the same request may succeed in a
    /// moment (a phone's upload queue sends its photo again, with its idempotency key, in case the
    /// connection was lost after the database had committed it).
    static var databaseUnavailable: Problem {
        Problem(
            .serviceUnavailable, code: "database-unavailable",
            detail: "The server cannot reach its database just now. Try again in a moment.",
            headers: [.retryAfter: "5"]
        )
    }

    /// A change that met other changes of the same rows at every try (many joins of one player
    /// at once): nothing of it was stored, and the same request may succeed at once.
    static var databaseBusy: Problem {
        Problem(
            .serviceUnavailable, code: "database-busy",
            detail: "Other changes of the same group kept coming first; nothing was changed. Try again.",
            headers: [.retryAfter: "1"]
        )
    }

    /// 405 for a 404 whose path the server has under other methods.
    private func methodNotAllowed(_ error: any Error, request: Request) -> Problem? {
        guard let error = error as? HTTPError, error.status == .notFound else { return nil }
        let methods = routes.methods(for: request.uri.path)
        guard !methods.isEmpty, !methods.contains(request.method) else { return nil }
        let allowed = methods.map(\.rawValue).joined(separator: ", ")
        return Problem(
            .methodNotAllowed, code: "method-not-allowed", detail: "\(request.uri.path) answers \(allowed), not \(request.method.rawValue).",
            headers: [.allow: allowed]
        )
    }

    static func problem(_ error: HTTPError, request: Request) -> Problem {
        Problem(error.status, code: code(for: error.status), detail: error.body ?? detail(for: error.status, request: request), headers: error.headers)
    }

    private func log(_ problem: Problem, request: Request, context: Context, cause: (any Error)? = nil) {
        let level: Logger.Level = problem.status.code >= 500 ? .error : .notice
        var metadata: Logger.Metadata = ["method": "\(request.method)", "path": "\(request.uri.path)"]
        if let cause { metadata["cause"] = "\(cause)" }
        context.logger.log(level: level, "\(problem.status.code) \(problem.code): \(problem.detail)", metadata: metadata)
    }

    static func code(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "bad-request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not-found"
        case 405: "method-not-allowed"
        case 409: "conflict"
        case 410: "gone"
        case 413: "payload-too-large"
        case 415: "unsupported-media-type"
        case 422: "unprocessable"
        case 429: "too-many-requests"
        default: status.code >= 500 ? "internal-error" : "client-error"
        }
    }

    static func detail(for status: HTTPResponse.Status, request: Request) -> String {
        status == .notFound ? "There is nothing at \(request.uri.path)." : status.reasonPhrase
    }
}

extension HTTPField.Name {
    static let requestId = Self("X-Request-Id")!
}
