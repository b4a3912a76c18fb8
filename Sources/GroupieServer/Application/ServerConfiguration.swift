import Logging

/// Everything `groupie serve` can be told, with the defaults an operator gets from `make run`.
public struct ServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port (tests).
    public var port: Int
    public var dataDirectory: String
    public var missionsDirectory: String
    public var assetsDirectory: String
    /// What QR codes and join links start with; nil means `http://<host>:<port>`.
    public var publicBaseURL: String?
    public var logLevel: Logger.Level
    /// How often the missions folder is looked at for changed files.
    public var missionReloadInterval: Duration

    public init(
        host: String = "0.0.0.0",
        port: Int = 8080,
        dataDirectory: String = "./data",
        missionsDirectory: String = "./missions",
        assetsDirectory: String = "./assets",
        publicBaseURL: String? = nil,
        logLevel: Logger.Level = .info,
        missionReloadInterval: Duration = .milliseconds(500)
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.missionsDirectory = missionsDirectory
        self.assetsDirectory = assetsDirectory
        self.publicBaseURL = publicBaseURL
        self.logLevel = logLevel
        self.missionReloadInterval = missionReloadInterval
    }

    /// The base URL without a trailing slash.
    public var resolvedPublicBaseURL: String {
        var url = publicBaseURL ?? "http://\(host == "0.0.0.0" || host == "::" ? "localhost" : host):\(port)"
        while url.hasSuffix("/") { url.removeLast() }
        return url
    }
}
