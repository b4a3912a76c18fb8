import HTTPTypes
import Hummingbird

/// Serves `/assets/` through Hummingbird's file middleware (`files`), guarded: a path with a NUL
/// or other control character (`%00`) is not a file name and gets 404 instead of whatever file
/// its prefix names, and a folder's redirect adds the slash to the path asked for, never
/// anything that could leave the origin (`//host/...`). Other paths go straight on, without
/// passing through the file middleware's frame.
struct AssetPathMiddleware<Files: RouterMiddleware>: RouterMiddleware where Files.Input == Request, Files.Output == Response {
    typealias Context = Files.Context
    let prefix: String
    let files: Files

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix(prefix + "/") || path == prefix else { return try await next(request, context) }
        let decoded = path.removingPercentEncoding ?? path
        guard !decoded.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw Problem.notFound("not-found", "There is nothing at this path.")
        }
        var response = try await files.handle(request, context: context, next: next)
        if (300..<400).contains(response.status.code), response.headers[.location] != nil {
            // The only redirect of a file server: a folder, to the same path with a slash.
            response.headers[.location] = path.hasSuffix("/") ? path : path + "/"
        }
        return response
    }
}
