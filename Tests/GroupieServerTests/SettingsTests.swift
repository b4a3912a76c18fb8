import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GRDB
@testable import GroupiePostgres
import GroupieServer
@testable import GroupieSQLite
@testable import GroupieStorage
import GroupieTestSupport
import Logging
import Testing

/// Where `groupie serve` takes its settings from, and what it says about bad ones.
@Suite("Settings")
struct SettingsTests {
    /// A valid value for every setting, none of them its default.
    static let samples = [
        "host": "127.0.0.1", "port": "9090", "data": "/srv/data", "database": "postgres://groupie@db.example:5432/groupie", "databaseWait": "45", "missions": "/srv/missions", "assets": "/srv/assets",
        "publicURL": "https://groupie.example", "tlsCertificate": "/etc/groupie/tls/groupie-chain.pem", "tlsKey": "/etc/groupie/tls/groupie.key",
        "httpRedirectPort": "80", "otlpEndpoint": "http://collector.example:4318", "retentionDays": "7", "headerTimeout": "5", "bodyTimeout": "6",
        "idleTimeout": "7", "creationsPerAddress": "40", "streamsPerPlayer": "6", "maxConnections": "99", "fileWorkers": "3", "trustProxy": "true", "logLevel": "debug",
    ]

    /// A temporary file holding `json`; the caller removes it.
    static func file(_ json: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("groupie-\(UUID().uuidString).json").path
        try Data(json.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func load(_ arguments: [String] = [], _ environment: [String: String] = [:]) async throws -> ServerConfiguration {
        try await ServerOptions.load(arguments: arguments, environment: environment)
    }

    /// The message for a configuration that is refused, with the config file's path as FILE.
    static func error(_ arguments: [String] = [], _ environment: [String: String] = [:], file json: String? = nil) async throws -> String? {
        let path = try json.map(file)
        defer { if let path { try? FileManager.default.removeItem(atPath: path) } }
        do {
            _ = try await load(arguments + (path.map { ["--config", $0] } ?? []), environment)
            return nil
        } catch {
            return path.map { "\(error)".replacingOccurrences(of: $0, with: "FILE") } ?? "\(error)"
        }
    }

    @Test("with nothing given, every setting has its default")
    func defaults() async throws {
        let configuration = try await Self.load()
        // Written down by hand, as the table of docs/operating.md says them; not read from the code.
        let expected = [
            "host": "0.0.0.0", "port": "8080", "data": "./data", "database": "sqlite", "databaseWait": "30",
            "missions": "./missions", "assets": "./assets", "publicURL": "http://<LAN address>:<port>",
            "tlsCertificate": "none", "tlsKey": "none", "httpRedirectPort": "none", "otlpEndpoint": "none",
            "retentionDays": "30", "headerTimeout": "10", "bodyTimeout": "30", "idleTimeout": "60", "creationsPerAddress": "300", "streamsPerPlayer": "4",
            "maxConnections": "4096", "fileWorkers": "8", "trustProxy": "false", "logLevel": "info",
        ]
        #expect(Set(ServerOptions.all.map(\.key)) == Set(expected.keys))
        for option in ServerOptions.all {
            #expect(option.value(configuration) == expected[option.key], "\(option.key)")
            #expect(option.defaultText == expected[option.key], "--help's default of \(option.key)")
        }
        #expect(configuration.port == 8080)
        #expect(configuration.publicBaseURL == nil)
        #expect(configuration.databaseURL == nil)
        #expect(configuration.timeouts == ConnectionTimeouts(header: .seconds(10), body: .seconds(30), idle: .seconds(60)))
    }

    @Test("every setting is read from the command line, the environment and the config file")
    func everySource() async throws {
        #expect(Set(Self.samples.keys) == Set(ServerOptions.all.map(\.key)))
        for option in ServerOptions.all {
            let sample = try #require(Self.samples[option.key])
            #expect(sample != option.defaultText, "\(option.key)")
            let arguments = option.kind == .flag ? [option.flag] : [option.flag, sample]
            #expect(option.value(try await Self.load(arguments)) == sample, "\(option.flag)")
            #expect(option.value(try await Self.load(["\(option.flag)=\(sample)"])) == sample, "\(option.flag)=")
            #expect(option.value(try await Self.load([], [option.variable: sample])) == sample, "\(option.variable)")
            // A JSON file writes numbers and booleans bare, or quoted like text.
            for json in option.kind == .text ? ["\"\(sample)\""] : [sample, "\"\(sample)\""] {
                let path = try Self.file("{\"\(option.key)\": \(json)}")
                defer { try? FileManager.default.removeItem(atPath: path) }
                #expect(option.value(try await Self.load(["--config", path])) == sample, "\(option.key): \(json)")
            }
        }
    }

    @Test("the command line beats the environment, which beats the config file, which beats the default")
    func precedence() async throws {
        let path = try Self.file(#"{"port": 1111, "host": "10.0.0.1", "logLevel": "error"}"#)
        let other = try Self.file(#"{"port": 4444}"#)
        defer { for file in [path, other] { try? FileManager.default.removeItem(atPath: file) } }
        let environment = ["GROUPIE_CONFIG": path, "GROUPIE_PORT": "2222", "GROUPIE_HOST": "10.0.0.2"]

        let everything = try await Self.load(["--port", "3333"], environment)
        #expect(everything.port == 3333)
        #expect(everything.host == "10.0.0.2")
        #expect(everything.logLevel == .error)
        #expect(everything.dataDirectory == "./data")
        #expect(try await Self.load([], environment).port == 2222)
        #expect(try await Self.load([], ["GROUPIE_CONFIG": path]).port == 1111)
        #expect(try await Self.load(["--config", other], environment).port == 2222)
        #expect(try await Self.load(["--config", other], ["GROUPIE_CONFIG": path]).port == 4444)
        // An empty variable counts as unset, so the file shows through.
        #expect(try await Self.load([], ["GROUPIE_CONFIG": path, "GROUPIE_PORT": ""]).port == 1111)
    }

    @Test("a bad value says where it came from, in one sentence", arguments: [
        (["--port", "70000"], [:], "--port: The port must be a number from 0 to 65535, not '70000'."),
        ([], ["GROUPIE_PORT": "eighty"], "GROUPIE_PORT: The port must be a number from 0 to 65535, not 'eighty'."),
        ([], ["GROUPIE_PUBLIC_URL": "ftp://x"], "GROUPIE_PUBLIC_URL: The public URL must start with http:// or https:// and name a host, not 'ftp://x'."),
        (["--retention-days", "0"], [:], "--retention-days: The retention in days must be a whole number, at least 1, not '0'."),
        ([], ["GROUPIE_IDLE_TIMEOUT": "-5"], "GROUPIE_IDLE_TIMEOUT: The idle timeout must be a whole number, at least 1, not '-5'."),
        (["--max-connections=lots"], [:], "--max-connections: The connection limit must be a whole number, at least 1, not 'lots'."),
        (["--log-level", "loud"], [:], "--log-level: The log level must be one of trace, debug, info, notice, warning, error, critical, not 'loud'."),
        (["--otlp-endpoint", "collector:4318"], [:], "--otlp-endpoint: The OTLP endpoint must start with http:// or https:// and name a host, not 'collector:4318'."),
        ([], ["GROUPIE_TRUST_PROXY": "maybe"], "GROUPIE_TRUST_PROXY: The trust-proxy setting must be true or false (or yes/no, 1/0), not 'maybe'."),
        (["--port"], [:], "--port needs a value."),
        (["--port", "--host", "x"], [:], "--port needs a value."),
        (["--prot", "8080"], [:], "Unknown option '--prot'. The options are --config, --host, --port,"),
        (["8080"], [:], "Unexpected argument '8080': serve takes only options,"),
        ([], ["GROUPIE_CONFIG": "/no/such/groupie.json"], "The config file /no/such/groupie.json does not exist or cannot be read."),
    ] as [([String], [String: String], String)])
    func badValue(arguments: [String], environment: [String: String], message: String) async throws {
        let error = try await Self.error(arguments, environment)
        #expect(error?.hasPrefix(message) == true, "\(error ?? "no error")")
    }

    @Test("a config file with an unknown key, a value of the wrong kind or no JSON object is refused", arguments: [
        (#"{"prot": 8080}"#, "The config file FILE has an unknown setting 'prot'. The settings are host, port, data,"),
        (#"{"port": "eighty"}"#, "\"port\" in FILE: The port must be a number from 0 to 65535, not 'eighty'."),
        (#"{"port": 80.5}"#, "\"port\" in FILE must be a whole number."),
        (#"{"host": 127}"#, "\"host\" in FILE must be text, in quotes."),
        (#"{"trustProxy": "maybe"}"#, "\"trustProxy\" in FILE: The trust-proxy setting must be true or false (or yes/no, 1/0), not 'maybe'."),
        (#"{"trustProxy": [true]}"#, "\"trustProxy\" in FILE must be text, a number or true or false."),
        (#"{"missions": {"path": "x"}}"#, "\"missions\" in FILE must be text, a number or true or false."),
        (#"{"port": null}"#, "\"port\" in FILE must be text, a number or true or false."),
        (#"[8080]"#, "The config file FILE must hold one JSON object, such as {\"port\": 8080}."),
        (#"{"port": 8080"#, "The config file FILE is not valid JSON"),
    ])
    func badFile(json: String, message: String) async throws {
        let error = try await Self.error(file: json)
        #expect(error?.hasPrefix(message) == true, "\(error ?? "no error")")
    }

    @Test("a bad value in a source that does not win is not looked at")
    func overriddenValue() async throws {
        #expect(try await Self.load(["--port", "80"], ["GROUPIE_PORT": "eighty"]).port == 80)
    }

    @Test("the names come from the key the way swift-configuration spells them")
    func names() {
        let publicURL = ServerOptions.all.first { $0.key == "publicURL" }
        #expect(publicURL?.flag == "--public-url")
        #expect(publicURL?.variable == "GROUPIE_PUBLIC_URL")
        #expect(ServerOptions.configFile.variable == "GROUPIE_CONFIG")
    }

    @Test("the configuration table of docs/operating.md lists every setting with its variable, file key and default")
    func readmeTable() throws {
        let readme = try String(contentsOf: TestServer.repository.appendingPathComponent("docs/operating.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "\n## Configuration\n").dropFirst().first?.components(separatedBy: "\n## ").first)
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `--") }.map { line in
            line.split(separator: "|").prefix(4).map { $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "`", with: "") }
        }
        let expected = [[ServerOptions.configFile.flag, ServerOptions.configFile.variable, "—", ServerOptions.configFile.defaultText]]
            + ServerOptions.all.map { [$0.flag, $0.variable, $0.key, $0.defaultText] }
        #expect(rows == expected)
    }

    @Test("a collector's endpoint without a path gets OTLP's traces path; one with a path is used as it is")
    func tracesURL() {
        #expect(GroupieTracing.tracesURL("http://collector:4318") == "http://collector:4318/v1/traces")
        #expect(GroupieTracing.tracesURL("http://collector:4318/") == "http://collector:4318/v1/traces")
        #expect(GroupieTracing.tracesURL("https://otel.example/ingest/traces") == "https://otel.example/ingest/traces")
    }
}
