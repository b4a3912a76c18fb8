import Configuration
import Foundation
import GroupieStorage
import Logging

/// One setting of `groupie serve`. An operator gives it on the command line, in the environment
/// or in the JSON config file; `ServerOptions` lists them all.
public struct ServerOption: Sendable {
    /// How a JSON file writes the value; the command line and the environment always give text.
    public enum Kind: Sendable {
        case text, number, flag
    }

    /// The name in the config file. The command line spells it `--kebab-case` and the
    /// environment `GROUPIE_SNAKE_CASE`, split where swift-configuration's key encoders split it.
    public let key: String
    public let kind: Kind
    /// Shown after the flag in `--help`, as in `--port <number>`; flags take none.
    public let valueName: String
    public let help: String
    /// The setting's current value as text, as help shows it.
    public let value: @Sendable (ServerConfiguration) -> String
    /// Read from `ServerConfiguration()`, so that the defaults are written down only there.
    public var defaultText: String { value(ServerConfiguration()) }
    /// Checks a value, whatever source it came from, and stores it. The thrown message is what
    /// the operator reads, so it names the setting and repeats the value.
    let apply: @Sendable (_ text: String, _ configuration: inout ServerConfiguration) throws -> Void

    init(
        _ key: String, _ kind: Kind, _ valueName: String = "", help: String,
        value: @escaping @Sendable (ServerConfiguration) -> String,
        apply: @escaping @Sendable (_ text: String, _ configuration: inout ServerConfiguration) throws -> Void
    ) {
        self.key = key
        self.kind = kind
        self.valueName = valueName
        self.help = help
        self.value = value
        self.apply = apply
    }

    public var flag: String { "--" + words.joined(separator: "-").lowercased() }
    public var variable: String { "GROUPIE_" + words.joined(separator: "_").uppercased() }

    /// `publicURL` is `public` and `URL`: a lowercase letter followed by an uppercase one starts a word.
    private var words: [String] {
        var words = [""]
        var previous: Character?
        for character in key {
            if let previous, previous.isLowercase, character.isUppercase { words.append("") }
            words[words.count - 1].append(character)
            previous = character
        }
        return words
    }
}

/// A setting that cannot be used; `description` is one sentence for the operator.
public struct SettingError: Error, CustomStringConvertible, Equatable {
    public let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// Every setting of `groupie serve`, once: its key, default, help and validation. The command
/// line, `--help`, the environment, the config file and the table in docs/operating.md all follow this list.
public enum ServerOptions {
    /// Where further settings come from; read before the others, so it cannot be set in the file.
    public static let configFile = ServerOption(
        "config", .text, "path", help: "JSON file of settings, such as {\"port\": 8080, \"logLevel\": \"debug\"}.",
        value: { _ in "none" }, apply: { _, _ in }
    )

    /// Each `value` reads its setting back; from `ServerConfiguration()` it gives the default
    /// that `--help` and docs/operating.md show. Its table is checked against this list.
    public static let all: [ServerOption] = [
        ServerOption("host", .text, "address", help: "Address to listen on.", value: { $0.host }) { text, configuration in
            configuration.host = text
        },
        ServerOption("port", .number, "number", help: "Port to listen on.", value: { "\($0.port)" }) { text, configuration in
            guard let port = Int(text), (0...65535).contains(port) else {
                throw SettingError("The port must be a number from 0 to 65535, not '\(text)'.")
            }
            configuration.port = port
        },
        ServerOption("data", .text, "folder", help: "Folder for the database and photos.", value: { $0.dataDirectory }) { text, configuration in
            configuration.dataDirectory = text
        },
        ServerOption(
            "database", .text, "url", help: "postgres://user:password@host/database to share PostgreSQL between instances; default: SQLite in the data folder.",
            value: { $0.databaseURL.map(ConfiguredStore.shown) ?? "sqlite" }
        ) { text, configuration in
            if text == "sqlite" || text.isEmpty {
                configuration.databaseURL = nil
                return
            }
            do {
                try ConfiguredStore.check(url: text)
            } catch {
                throw SettingError("The database must be 'sqlite' or a URL like postgres://user:password@host:5432/groupie: \(error)")
            }
            configuration.databaseURL = text
        },
        ServerOption(
            "databaseWait", .number, "seconds", help: "Seconds to wait at start for a PostgreSQL that does not answer yet.",
            value: { "\($0.databaseWait.components.seconds)" }
        ) { text, configuration in
            guard let seconds = Int(text), seconds >= 0 else {
                throw SettingError("The database wait must be a whole number of seconds, 0 or more, not '\(text)'.")
            }
            configuration.databaseWait = .seconds(seconds)
        },
        ServerOption("missions", .text, "folder", help: "Folder of the venues' mission files.", value: { $0.missionsDirectory }) { text, configuration in
            configuration.missionsDirectory = text
        },
        ServerOption("assets", .text, "folder", help: "Folder of icons, logos, stickers and the web client.", value: { $0.assetsDirectory }) { text, configuration in
            configuration.assetsDirectory = text
        },
        ServerOption(
            "publicURL", .text, "url", help: "URL phones reach the server at, used in join links and QR codes.",
            value: { $0.publicBaseURL ?? "http://<LAN address>:<port>" }
        ) { text, configuration in
            configuration.publicBaseURL = try webURL(text, "The public URL")
        },
        ServerOption(
            "tlsCertificate", .text, "path", help: "PEM file of the HTTPS certificate and its chain; with --tls-key, serve speaks HTTPS.",
            value: { $0.tlsCertificate ?? "none" }
        ) { text, configuration in
            configuration.tlsCertificate = text.isEmpty ? nil : text
        },
        ServerOption("tlsKey", .text, "path", help: "PEM file of the certificate's private key.", value: { $0.tlsKey ?? "none" }) { text, configuration in
            configuration.tlsKey = text.isEmpty ? nil : text
        },
        ServerOption(
            "httpRedirectPort", .number, "number", help: "A plain-HTTP port that only redirects to HTTPS (such as 80).",
            value: { $0.httpRedirectPort.map(String.init) ?? "none" }
        ) { text, configuration in
            guard let port = Int(text), (1...65535).contains(port) else {
                throw SettingError("The HTTP redirect port must be a number from 1 to 65535, not '\(text)'.")
            }
            configuration.httpRedirectPort = port
        },
        ServerOption(
            "otlpEndpoint", .text, "url", help: "An OpenTelemetry collector's OTLP/HTTP endpoint, for traces (none without it).",
            value: { $0.otlpEndpoint ?? "none" }
        ) { text, configuration in
            configuration.otlpEndpoint = text.isEmpty ? nil : try webURL(text, "The OTLP endpoint")
        },
        ServerOption("retentionDays", .number, "days", help: "Days groups, their photos and files are kept.", value: { "\($0.retention.components.seconds / 86_400)" }) { text, configuration in
            configuration.retention = .seconds(try positive(text, "retention in days") * 86_400)
        },
        ServerOption("headerTimeout", .number, "seconds", help: "Seconds a request may take to send its headers.", value: { "\($0.timeouts.header.components.seconds)" }) { text, configuration in
            configuration.timeouts.header = .seconds(try positive(text, "header timeout"))
        },
        ServerOption("bodyTimeout", .number, "seconds", help: "Longest pause in seconds while a request body arrives.", value: { "\($0.timeouts.body.components.seconds)" }) { text, configuration in
            configuration.timeouts.body = .seconds(try positive(text, "body timeout"))
        },
        ServerOption("idleTimeout", .number, "seconds", help: "Seconds a kept-alive connection may wait for its next request.", value: { "\($0.timeouts.idle.components.seconds)" }) { text, configuration in
            configuration.timeouts.idle = .seconds(try positive(text, "idle timeout"))
        },
        ServerOption(
            "creationsPerAddress", .number, "count", help: "Players, and groups, one client address may make in 10 minutes.",
            value: { "\($0.creationsPerAddress)" }
        ) { text, configuration in
            configuration.creationsPerAddress = try positive(text, "number of players and groups per address")
        },
        ServerOption(
            "streamsPerPlayer", .number, "count", help: "Event streams one player may hold open at once (tabs, phones).",
            value: { "\($0.streamsPerPlayer)" }
        ) { text, configuration in
            configuration.streamsPerPlayer = try positive(text, "number of event streams per player")
        },
        ServerOption("maxConnections", .number, "count", help: "Connections served at once.", value: { "\($0.maxConnections)" }) { text, configuration in
            configuration.maxConnections = try positive(text, "connection limit")
        },
        ServerOption("fileWorkers", .number, "count", help: "Threads for blocking file work.", value: { "\($0.fileWorkers)" }) { text, configuration in
            configuration.fileWorkers = try positive(text, "number of file workers")
        },
        ServerOption(
            "trustProxy", .flag, help: "Behind a reverse proxy: take the client's address from X-Forwarded-For.",
            value: { "\($0.trustForwardedFor)" }
        ) { text, configuration in
            switch text.lowercased() {
            case "true", "yes", "1": configuration.trustForwardedFor = true
            case "false", "no", "0": configuration.trustForwardedFor = false
            default: throw SettingError("The trust-proxy setting must be true or false (or yes/no, 1/0), not '\(text)'.")
            }
        },
        ServerOption("logLevel", .text, "level", help: "trace, debug, info, notice, warning, error or critical.", value: { $0.logLevel.rawValue }) { text, configuration in
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw SettingError("The log level must be one of trace, debug, info, notice, warning, error, critical, not '\(text)'.")
            }
            configuration.logLevel = level
        },
    ]

    /// A whole number of at least 1; `what` names it in the error.
    /// `text` when it is an http:// or https:// URL that names a host.
    private static func webURL(_ text: String, _ what: String) throws(SettingError) -> String {
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw SettingError("\(what) must start with http:// or https:// and name a host, not '\(text)'.")
        }
        return text
    }

    private static func positive(_ text: String, _ what: String) throws(SettingError) -> Int {
        guard let value = Int(text), value >= 1 else {
            throw SettingError("The \(what) must be a whole number, at least 1, not '\(text)'.")
        }
        return value
    }
}

// MARK: - Reading

extension ServerOptions {
    /// The configuration from the arguments after `serve`, then the `GROUPIE_*` environment
    /// variables, then the config file that either of them names, then the defaults.
    public static func load(arguments: [String], environment: [String: String]) async throws(SettingError) -> ServerConfiguration {
        var sources = [
            Source(
                provider: InMemoryProvider(name: "command line", values: try commandLineValues(arguments)),
                label: { $0.flag }
            ),
            Source(
                // An empty variable counts as unset, so that `GROUPIE_PORT=` clears one for a single run.
                provider: EnvironmentVariablesProvider(environmentVariables: environment.filter { !$0.value.isEmpty })
                    .prefixKeys(with: "groupie"),
                label: { $0.variable }
            ),
        ]
        if let path = try await text(of: configFile, in: sources) {
            try checkFile(path)
            let file: FileProvider<JSONSnapshot>
            do {
                file = try await FileProvider<JSONSnapshot>(filePath: .init(path))
            } catch {
                throw SettingError("The config file \(path) cannot be read: \(error)")
            }
            sources.append(Source(provider: file, label: { "\"\($0.key)\" in \(path)" }))
        }
        var configuration = ServerConfiguration()
        for option in all {
            guard let text = try await text(of: option, in: sources) else { continue }
            do {
                try option.apply(text, &configuration)
            } catch {
                throw SettingError("\(origin(of: option, in: sources)): \(error)")
            }
        }
        return configuration
    }

    /// A provider, and how it names an option in an error message.
    struct Source {
        let provider: any ConfigProvider
        let label: @Sendable (ServerOption) -> String
    }

    /// The option's value from the first source that has it, as text for `apply`. A JSON file
    /// may write numbers and booleans bare, so those are asked for in their own type first.
    static func text(of option: ServerOption, in sources: [Source]) async throws(SettingError) -> String? {
        let reader = ConfigReader(providers: sources.map(\.provider))
        let key = ConfigKey([option.key])
        switch option.kind {
        case .number:
            if let number = try? await reader.fetchInt(forKey: key) { return "\(number)" }
        case .flag:
            if let flag = try? await reader.fetchBool(forKey: key) { return "\(flag)" }
        case .text:
            break
        }
        do {
            return try await reader.fetchString(forKey: key)
        } catch {
            // Only a file can hold a value that is neither its kind nor text: a list, or 1.5.
            let expected = switch option.kind {
            case .text: "text, in quotes"
            case .number: "a whole number"
            case .flag: "true or false"
            }
            throw SettingError("\(origin(of: option, in: sources)) must be \(expected).")
        }
    }

    /// Where the value that won came from, for the error message: the first source with the key.
    static func origin(of option: ServerOption, in sources: [Source]) -> String {
        let key = AbsoluteConfigKey([option.key])
        for source in sources {
            // A lookup that throws found the key holding some other type.
            guard let result = try? source.provider.value(forKey: key, type: .string), result.value == nil else {
                return source.label(option)
            }
        }
        return option.flag
    }

    /// `--name value`, `--name=value` and `--flag`. Argument parser cannot declare options from a
    /// list, so `Serve` hands its arguments over unparsed, and a misspelt option is caught here.
    /// swift-configuration's `CommandLineArgumentsProvider` is not used: it splits every value at
    /// commas, which a folder or URL may hold, and its own guide sends subcommands this way.
    static func commandLineValues(_ arguments: [String]) throws(SettingError) -> [AbsoluteConfigKey: ConfigValue] {
        let options = [configFile] + all
        var values: [AbsoluteConfigKey: ConfigValue] = [:]
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            guard argument.hasPrefix("--"), let option = options.first(where: { $0.flag == name }) else {
                let known = options.map(\.flag).joined(separator: ", ")
                throw SettingError(
                    argument.hasPrefix("-")
                        ? "Unknown option '\(name)'. The options are \(known)."
                        : "Unexpected argument '\(argument)': serve takes only options, \(known)."
                )
            }
            let value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else if option.kind == .flag {
                value = "true"
            } else if let next = remaining.first, !next.hasPrefix("--") {
                value = remaining.removeFirst()
            } else {
                throw SettingError("\(option.flag) needs a value.")
            }
            values[AbsoluteConfigKey([option.key])] = ConfigValue(.string(value), isSecret: false)
        }
        return values
    }

    /// swift-configuration looks keys up but cannot list them, so the file is read here as well,
    /// to reject a misspelt key or a nested value that would otherwise be ignored without a word.
    static func checkFile(_ path: String) throws(SettingError) {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SettingError("The config file \(path) does not exist or cannot be read.")
        }
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                throw SettingError("The config file \(path) must hold one JSON object, such as {\"port\": 8080}.")
            }
            object = parsed
        } catch let error as SettingError {
            throw error
        } catch {
            let detail = (error as NSError).userInfo[NSDebugDescriptionErrorKey].map { ": \($0)" } ?? ""
            throw SettingError("The config file \(path) is not valid JSON\(detail).")
        }
        let keys = all.map(\.key)
        for (key, value) in object.sorted(by: { $0.key < $1.key }) {
            guard keys.contains(key) else {
                throw SettingError("The config file \(path) has an unknown setting '\(key)'. The settings are \(keys.joined(separator: ", ")).")
            }
            if value is [Any] || value is [String: Any] || value is NSNull {
                throw SettingError("\"\(key)\" in \(path) must be text, a number or true or false.")
            }
        }
    }
}
