import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Turns every error into a problem document and logs it: client mistakes at notice level
/// with their code, server faults at error level without leaking details to the client.
struct ProblemMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let problem as Problem {
            log(problem, request: request, context: context)
            return try problem.response(from: request, context: context)
        } catch let error as HTTPError {
            let problem = Problem(error.status, code: Self.code(for: error.status), detail: error.body ?? Self.detail(for: error.status, request: request), headers: error.headers)
            log(problem, request: request, context: context)
            return try problem.response(from: request, context: context)
        } catch let error as any HTTPResponseError where error.status.code < 500 {
            let problem = Problem(error.status, code: Self.code(for: error.status), detail: "\(error)")
            log(problem, request: request, context: context)
            return try problem.response(from: request, context: context)
        } catch {
            context.logger.error("request failed: \(error)", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)"])
            let problem = Problem(.internalServerError, code: "internal-error", detail: "Something went wrong on the server; it has been logged with this request's id.")
            return try problem.response(from: request, context: context)
        }
    }

    private func log(_ problem: Problem, request: Request, context: Context) {
        let level: Logger.Level = problem.status.code >= 500 ? .error : .notice
        context.logger.log(level: level, "\(problem.status.code) \(problem.code): \(problem.detail)", metadata: ["method": "\(request.method)", "path": "\(request.uri.path)"])
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
