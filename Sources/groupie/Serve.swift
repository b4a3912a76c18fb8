import ArgumentParser
import Foundation
import GroupieServer
import Hummingbird
import Logging

/// `groupie serve`: every option can also come from a `GROUPIE_*` environment variable;
/// the command line wins over the environment, the environment over the defaults.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the venues of the missions folder.")

    @Option(help: "Address to listen on (GROUPIE_HOST). Default 0.0.0.0.")
    var host: String?
    @Option(help: "Port to listen on (GROUPIE_PORT). Default 8080.")
    var port: Int?
    @Option(help: "Folder for the database and photos (GROUPIE_DATA). Default ./data.")
    var data: String?
    @Option(help: "Folder of the venues' mission files (GROUPIE_MISSIONS). Default ./missions.")
    var missions: String?
    @Option(help: "Folder of icons, logos, stickers and the web client (GROUPIE_ASSETS). Default ./assets.")
    var assets: String?
    @Option(name: .customLong("public-url"), help: "URL phones reach the server at, used in join links and QR codes (GROUPIE_PUBLIC_URL). Default http://<this machine's LAN address>:<port>.")
    var publicURL: String?
    @Option(name: .customLong("retention-days"), help: "Days groups, their photos and files are kept (GROUPIE_RETENTION_DAYS). Default 30.")
    var retentionDays: Int?
    @Flag(name: .customLong("trust-proxy"), help: "Behind a reverse proxy: take the client's address from X-Forwarded-For (GROUPIE_TRUST_PROXY=1).")
    var trustProxy = false
    @Option(name: .customLong("header-timeout"), help: "Seconds a request may take to send its headers (GROUPIE_HEADER_TIMEOUT). Default 10.")
    var headerTimeout: Int?
    @Option(name: .customLong("body-timeout"), help: "Longest pause in seconds while a request body arrives (GROUPIE_BODY_TIMEOUT). Default 30.")
    var bodyTimeout: Int?
    @Option(name: .customLong("idle-timeout"), help: "Seconds a kept-alive connection may wait for its next request (GROUPIE_IDLE_TIMEOUT). Default 60.")
    var idleTimeout: Int?
    @Option(name: .customLong("max-connections"), help: "Connections served at once (GROUPIE_MAX_CONNECTIONS). Default 4096.")
    var maxConnections: Int?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (GROUPIE_LOG_LEVEL). Default info.")
    var logLevel: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        func setting(_ option: String?, _ variable: String) -> String? {
            option ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        var configuration = ServerConfiguration()
        if let host = setting(host, "GROUPIE_HOST") { configuration.host = host }
        if let portText = setting(port.map(String.init), "GROUPIE_PORT") {
            guard let port = Int(portText), (0...65535).contains(port) else {
                throw ValidationError("The port must be a number from 0 to 65535, not '\(portText)'.")
            }
            configuration.port = port
        }
        if let data = setting(data, "GROUPIE_DATA") { configuration.dataDirectory = data }
        if let missions = setting(missions, "GROUPIE_MISSIONS") { configuration.missionsDirectory = missions }
        if let assets = setting(assets, "GROUPIE_ASSETS") { configuration.assetsDirectory = assets }
        if let publicURL = setting(publicURL, "GROUPIE_PUBLIC_URL") {
            guard let url = URL(string: publicURL), url.scheme == "http" || url.scheme == "https", url.host != nil else {
                throw ValidationError("The public URL must start with http:// or https:// and name a host, not '\(publicURL)'.")
            }
            configuration.publicBaseURL = publicURL
        }
        /// A whole number of at least 1 from the option or its variable; `what` names it in the error.
        func positive(_ option: Int?, _ variable: String, _ what: String) throws -> Int? {
            guard let text = setting(option.map(String.init), variable) else { return nil }
            guard let value = Int(text), value >= 1 else {
                throw ValidationError("The \(what) must be a whole number, at least 1, not '\(text)'.")
            }
            return value
        }
        if let days = try positive(retentionDays, "GROUPIE_RETENTION_DAYS", "retention in days") { configuration.retention = .seconds(days * 24 * 3600) }
        if let seconds = try positive(headerTimeout, "GROUPIE_HEADER_TIMEOUT", "header timeout") { configuration.timeouts.header = .seconds(seconds) }
        if let seconds = try positive(bodyTimeout, "GROUPIE_BODY_TIMEOUT", "body timeout") { configuration.timeouts.body = .seconds(seconds) }
        if let seconds = try positive(idleTimeout, "GROUPIE_IDLE_TIMEOUT", "idle timeout") { configuration.timeouts.idle = .seconds(seconds) }
        if let count = try positive(maxConnections, "GROUPIE_MAX_CONNECTIONS", "connection limit") { configuration.maxConnections = count }
        configuration.trustForwardedFor = trustProxy || ["1", "true", "yes"].contains(environment["GROUPIE_TRUST_PROXY"]?.lowercased() ?? "")
        if let levelText = setting(logLevel, "GROUPIE_LOG_LEVEL") {
            guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
                throw ValidationError("The log level must be one of trace, debug, info, notice, warning, error, critical, not '\(levelText)'.")
            }
            configuration.logLevel = level
        }

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = configuration.logLevel
            return handler
        }
        if configuration.publicBaseURL == nil, configuration.host == "0.0.0.0", let address = LANAddress.first() {
            // Without a public URL, QR codes point at this machine's address on the local network.
            configuration.publicBaseURL = "http://\(address):\(configuration.port)"
        }
        let app: any ApplicationProtocol
        do {
            app = try await buildApplication(configuration)
        } catch let error as StartupError {
            FileHandle.standardError.write(Data("groupie: \(error.description)\n".utf8))
            throw ExitCode(2)
        }
        FileHandle.standardError.write(Data("groupie: phones join at \(configuration.resolvedPublicBaseURL) (set --public-url to change)\n".utf8))
        try await app.runService()
    }
}
