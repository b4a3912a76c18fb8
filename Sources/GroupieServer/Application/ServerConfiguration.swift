import Foundation
import GroupieStorage
import Logging

/// Everything the server can be told, with the defaults an operator gets from `make run`.
/// `ServerOptions` lists the ones an operator can set and fills them in from the command line,
/// environment and config file; it shows the defaults written here, so they are written only here.
public struct ServerConfiguration: Sendable {
    public var host: String = "0.0.0.0"
    /// 0 picks a free port (tests).
    public var port: Int = 8080
    public var dataDirectory: String = DataFolder.defaultPath
    /// The data folder's layout: where its database, photos and other parts are.
    public var dataFolder: DataFolder { DataFolder(dataDirectory) }
    /// `postgres://…` for PostgreSQL, shared by several instances; nil keeps SQLite in the data
    /// folder (`groupie.sqlite`).
    public var databaseURL: String?
    /// How long `serve` waits at start for a PostgreSQL that does not answer yet.
    public var databaseWait: Duration = .seconds(30)
    public var missionsDirectory: String = "./missions"
    public var assetsDirectory: String = "./assets"
    /// What QR codes and join links start with; nil means `http://<host>:<port>` (`https://`
    /// with a certificate).
    public var publicBaseURL: String?
    /// PEM files of the certificate chain (the server's certificate first) and of its private
    /// key: with both, the server speaks HTTPS only.
    public var tlsCertificate: String?
    public var tlsKey: String?
    /// A plain-HTTP port beside HTTPS that only redirects to the public URL.
    public var httpRedirectPort: Int?
    /// An OpenTelemetry collector's OTLP/HTTP endpoint: traces go there (`GroupieTracing`); none
    /// are made without it.
    public var otlpEndpoint: String?
    /// How often the certificate files are looked at for a change (SIGHUP reads them at once).
    public var tlsReloadInterval: Duration = .seconds(2)
    public var logLevel: Logger.Level = .info
    /// How often the missions folder is looked at for changed files.
    public var missionReloadInterval: Duration = .milliseconds(500)
    /// Take the client's address from the last `X-Forwarded-For` entry: set it when Groupie
    /// runs behind a reverse proxy, or every visitor looks like the proxy to the rate limits.
    public var trustForwardedFor: Bool = false
    /// Failed joins (unknown or malformed codes) allowed per player and per client address
    /// within `failedJoinWindow`, before further attempts get 429. The address limit is high
    /// enough for a school class behind one address, and counts unknown codes of `/j/{code}`.
    public var failedJoinsPerPlayer: Int = 10
    public var failedJoinsPerAddress: Int = 300
    public var failedJoinWindow: Duration = .seconds(600)
    /// Players, and groups, one client address may make in `creationWindow`: a school class
    /// behind one address makes a few dozen of each, a script thousands.
    public var creationsPerAddress: Int = 300
    public var creationWindow: Duration = .seconds(600)
    /// Event streams open at once for one player (tabs, phones), and for one group.
    public var streamsPerPlayer = 4
    public var streamsPerGroup = 64
    /// The share of `maxConnections` that event streams may hold; the rest stays for requests.
    public var streamShare = 0.75
    /// Files (originals, display images, album ZIPs) sent at once, each holding what was read
    /// ahead of its socket, about a megabyte whatever the file's size: together about 128 MB.
    public var streamedDownloads = 128
    /// The largest photo accepted, in bytes.
    public var maxUploadBytes: Int = 25 * 1_048_576
    /// Bytes that resumable uploads not yet complete may announce (their totals), in one group,
    /// from one client address and in all; a new upload past any is refused with 507 until
    /// others finish or expire. A class behind one address sends a few photos of some MiB at once.
    public var partialUploadBytesPerGroup = 100 * 1_048_576
    public var partialUploadBytesPerAddress = 256 * 1_048_576
    public var partialUploadBytes = 1_024 * 1_048_576
    /// How long a resumable upload's bytes stay on disk after its last part.
    public var partialUploadLifetime: TimeInterval = 24 * 3600
    /// Photos processed at once; more wait their turn.
    public var imageWorkers: Int = ProcessInfo.processInfo.activeProcessorCount
    /// Threads for blocking file work (reading images, writing uploads, removing files).
    public var fileWorkers: Int = 8
    /// How often an idle event stream gets a comment, so that proxies keep it open.
    public var eventHeartbeat: Duration = .seconds(15)
    /// Header, body and keep-alive idle timeouts of every connection.
    public var timeouts: ConnectionTimeouts = ConnectionTimeouts()
    /// Connections served at once; more wait to be accepted. Lowered at start to what the
    /// process's file limit allows.
    public var maxConnections: Int = 4096
    /// How long groups, their photos and files are kept.
    public var retention: Duration = .seconds(30 * 24 * 3600)
    /// How often the retention sweep runs.
    public var retentionSweepInterval: Duration = .seconds(3600)
    /// The time; tests move it forward.
    public var clock: @Sendable () -> Date = { Date() }

    /// The defaults; set what differs, property by property (`ServerOptions` does, from the
    /// command line, environment and config file).
    public init() {}

    /// Whether the server speaks HTTPS, with a certificate and its key.
    public var servesTLS: Bool { tlsCertificate != nil && tlsKey != nil }

    /// `http://` or `https://`, as the server speaks.
    public var scheme: String { servesTLS ? "https" : "http" }

    /// The URL of `host` at the server's port, with the server's scheme; the port is left out
    /// when it is the scheme's own (443 for HTTPS).
    public func url(ofHost host: String) -> String {
        let host = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
        return (servesTLS && port == 443) || (!servesTLS && port == 80) ? "\(scheme)://\(host)" : "\(scheme)://\(host):\(port)"
    }

    /// The base URL without a trailing slash.
    public var resolvedPublicBaseURL: String {
        var url = publicBaseURL ?? self.url(ofHost: host == "0.0.0.0" || host == "::" ? "localhost" : host)
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
