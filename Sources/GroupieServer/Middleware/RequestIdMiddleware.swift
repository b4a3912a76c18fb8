import Foundation
import HTTPTypes
import Hummingbird

/// Hands the request id that every log line of the request carries back to the client,
/// so that a report from a phone can be matched with the server's log.
struct RequestIdMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        response.headers[.requestId] = context.id
        return response
    }
}

extension HTTPField.Name {
    static let requestId = Self("X-Request-Id")!
}
