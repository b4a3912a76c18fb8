import Foundation
import GroupieContent
import HTTPTypes
import Hummingbird

/// Serves `/assets/` through Hummingbird's file middleware (`files`), guarded: a path with a NUL
/// or other control character (`%00`) is not a file name and gets 404 instead of whatever file
/// its prefix names, and a folder's redirect adds the slash to the path asked for, never
/// anything that could leave the origin (`//host/...`). Only a regular file (or a folder)
/// whose resolved path lies under the assets folder's is served: a link to `/etc/hostname`
/// put in the folder answers 404. Other paths go straight on, without passing through the
/// file middleware's frame.
struct AssetPathMiddleware<Files: RouterMiddleware>: RouterMiddleware where Files.Input == Request, Files.Output == Response, Files.Context: RequestContext {
    typealias Context = Files.Context
    let prefix: String
    let files: Files
    /// The assets folder, and its path with every link resolved.
    let directory: String
    let resolvedDirectory: String
    let fileIO: any BlockingWork
    /// Text files gzipped for browsers that take it.
    let compressed = CompressedAssets()

    init(prefix: String, directory: String, fileIO: any BlockingWork, files: Files) {
        self.prefix = prefix
        self.files = files
        self.directory = directory
        self.resolvedDirectory = Self.resolve(directory) ?? directory
        self.fileIO = fileIO
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard path.hasPrefix(prefix + "/") || path == prefix else { return try await next(request, context) }
        let decoded = path.removingPercentEncoding ?? path
        guard !decoded.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw Problem.notFound("not-found", "There is nothing at this path.")
        }
        let relative = decoded.dropFirst(prefix.count)
        let (directory, resolvedDirectory) = (self.directory, self.resolvedDirectory)
        let inside = try await fileIO.run { Self.servable(directory + relative, under: resolvedDirectory) }
        guard inside else {
            context.logger.notice("asset refused: not a regular file under the assets folder", metadata: ["path": "\(path)"])
            throw Problem.notFound("not-found", "There is nothing at this path.")
        }
        var response = try await compressed.encode(
            try await files.handle(request, context: context, next: next), of: directory + relative, for: request, fileIO: fileIO
        )
        if (300..<400).contains(response.status.code), response.headers[.location] != nil {
            // The only redirect of a file server: a folder, to the same path with a slash.
            response.headers[.location] = path.hasSuffix("/") ? path : path + "/"
        }
        return response
    }
}

extension AssetPathMiddleware {
    /// `path` with every link and `..` resolved, or nil when it does not exist.
    static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Whether `path` is a regular file or a folder that, resolved, lies in `root`. A path
    /// that does not exist is let through: the file middleware answers it 404 itself.
    static func servable(_ path: String, under root: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return errno == ENOENT || errno == ENOTDIR }
        guard let resolved = resolve(path), resolved == root || resolved.hasPrefix(root + "/") else { return false }
        guard stat(resolved, &info) == 0 else { return false }
        return (info.st_mode & S_IFMT) == S_IFREG || (info.st_mode & S_IFMT) == S_IFDIR
    }
}
