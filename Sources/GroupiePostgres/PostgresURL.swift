import _ConnectionPoolModule
import Foundation
import GroupieCore
import GroupieStorage
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

public enum PostgresStoreError: Error, CustomStringConvertible, Equatable {
    case invalidURL(String)
    case schemaTooNew(version: Int)
    case noFreeJoinCode
    /// Some of the groups to import are in the database already.
    case alreadyImported(groups: Int)

    public var description: String {
        switch self {
        case .invalidURL(let why): "The PostgreSQL URL cannot be used: \(why)"
        case .schemaTooNew(let version):
            "The database has migration \(version), newer than this Groupie knows: upgrade Groupie before starting it on this database."
        case .noFreeJoinCode: "no free join code after 30 attempts"
        case .alreadyImported(let groups):
            "The PostgreSQL database already holds \(groups) of these groups: this database, or this venue's export, was imported before."
        }
    }
}

/// A `postgres://` URL, read the way libpq reads one, as far as Groupie needs.
public struct PostgresURL: Sendable {
    public private(set) var configuration: PostgresClient.Configuration
    private let endpoint: Endpoint
    private enum Endpoint: Sendable {
        case socket(String)
        case tcp(host: String, port: Int, encryption: Encryption)
    }
    /// The URL's `sslmode` and `sslrootcert`, as libpq (16) reads them.
    enum Encryption: Hashable, Sendable {
        /// No TLS (`disable`).
        case disable
        /// TLS when the server offers it (`prefer`, the default, and `allow`), its certificate not
        /// checked: PostgreSQL's own packages serve a self-signed one.
        case prefer
        /// TLS or no connection (`require`), the certificate not checked.
        case require
        /// TLS with a certificate signed by an authority in `roots`, a PEM file: `verify-ca`, and
        /// `require` with `sslrootcert`, as libpq does.
        case verifyAuthority(roots: String)
        /// TLS with a certificate made out to the URL's host and signed by an authority in
        /// `roots`, or by one of the system's trust roots when nil (`sslrootcert=system`).
        case verifyHost(roots: String?)

        /// libpq's rules: a check needs an authority to check against, and the system's trust
        /// roots, which vouch for anyone's public name, only with the host name checked too
        /// (`sslrootcert=system` makes `verify-full` the default and refuses weaker modes).
        init(mode given: String?, rootCertificate: String?) throws {
            let system = rootCertificate == "system"
            let file = system ? nil : rootCertificate.flatMap { $0.isEmpty ? nil : $0 }
            let mode = given ?? (system ? "verify-full" : "prefer")
            if system, mode != "verify-full" {
                throw PostgresStoreError.invalidURL("sslrootcert=system trusts any public authority, so it needs sslmode=verify-full, not '\(mode)'")
            }
            switch mode {
            case "disable": self = .disable
            case "prefer", "allow": self = .prefer
            case "require": self = file.map { .verifyAuthority(roots: $0) } ?? .require
            case "verify-ca":
                guard let file else {
                    throw PostgresStoreError.invalidURL("sslmode=verify-ca needs sslrootcert=/path/to/authority.crt, the authority to check the server's certificate against")
                }
                self = .verifyAuthority(roots: file)
            case "verify-full":
                guard file != nil || system else {
                    throw PostgresStoreError.invalidURL("sslmode=verify-full needs sslrootcert=/path/to/authority.crt (or sslrootcert=system for the system's trust roots)")
                }
                self = .verifyHost(roots: file)
            case let mode:
                throw PostgresStoreError.invalidURL("sslmode must be disable, allow, prefer, require, verify-ca or verify-full, not '\(mode)'")
            }
            if let roots = self.roots {
                // Read now, so that a file that is no authority stops Groupie before it connects.
                var isFolder: ObjCBool = false
                guard FileManager.default.fileExists(atPath: roots, isDirectory: &isFolder), !isFolder.boolValue,
                    FileManager.default.isReadableFile(atPath: roots)
                else { throw PostgresStoreError.invalidURL("sslrootcert \(roots) is not a file Groupie can read") }
                guard let certificates = try? NIOSSLCertificate.fromPEMFile(roots), !certificates.isEmpty else {
                    throw PostgresStoreError.invalidURL("sslrootcert \(roots) holds no certificate in PEM (-----BEGIN CERTIFICATE-----)")
                }
            }
        }

        /// The file of the authorities to check against, where there is one.
        var roots: String? {
            switch self {
            case .verifyAuthority(let roots): roots
            case .verifyHost(let roots): roots
            default: nil
            }
        }

        /// The client's TLS settings, nil for none.
        var configuration: TLSConfiguration? {
            var tls = TLSConfiguration.makeClientConfiguration()
            switch self {
            case .disable:
                return nil
            case .prefer, .require:
                tls.certificateVerification = .none
            case .verifyAuthority:
                tls.certificateVerification = .noHostnameVerification
            case .verifyHost:
                tls.certificateVerification = .fullVerification
            }
            if let roots { tls.trustRoots = .file(roots) }
            return tls
        }
    }
    /// The path of the Unix socket, for a URL that names one.
    var socketPath: String? {
        if case .socket(let path) = endpoint { return path }
        return nil
    }

    /// The URL without its password: what logs and `/readyz` may show.
    public let redacted: String

    /// No connection kept open while idle, whatever `pool_min` says: for a command that opens
    /// the database for one job and ends.
    mutating func keepingNoneReady() {
        configuration.options.minimumConnections = 0
    }

    public static func isPostgres(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// The URL's query parameters Groupie reads. libpq refuses a parameter it does not know, and
    /// so does Groupie, a parameter it does not act on: a client certificate (`sslcert`) left
    /// unread would be a check the operator believes in and nobody makes.
    static let parameters = ["host", "port", "user", "password", "dbname", "sslmode", "sslrootcert", "connect_timeout", "application_name", "pool", "pool_min"]

    /// libpq's parameters that Groupie takes and leaves unread, with the values for which that
    /// changes nothing (nil: any value): TCP tuning, and the modes that only ask for what a
    /// connection does anyway. `channel_binding=require`, `gssencmode=require` or
    /// `target_session_attrs=read-write` ask for a check Groupie does not make, and are refused.
    static let harmless: [String: Set<String>?] = [
        "channel_binding": ["disable", "prefer"], "gssencmode": ["disable", "prefer"], "target_session_attrs": ["any"],
        "keepalives": nil, "keepalives_idle": nil, "keepalives_interval": nil, "keepalives_count": nil, "tcp_user_timeout": nil,
        "fallback_application_name": nil, "client_encoding": ["UTF8", "utf8", "UTF-8", "utf-8"],
    ]

    /// Where Debian's PostgreSQL keeps its Unix socket, and so where libpq looks for one when a
    /// URL names no host (`postgres:///groupie`).
    static let defaultSocketFolder = "/var/run/postgresql"

    /// The connections an instance keeps open when `pool_min` is not given: fewer when its
    /// `pool` is no larger.
    static let defaultMinimumConnections = 8

    /// Reads `postgres://user:password@host:port/database?parameters` as libpq does: the
    /// parameters `host`, `port`, `user`, `password` and `dbname` override the URL's own parts; a
    /// `host` that starts with `/` is the folder of a Unix socket, and no host at all means
    /// Debian's socket folder; no user means the user Groupie runs as.
    public init(_ text: String) throws {
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw PostgresStoreError.invalidURL("it must look like postgres://user:password@host:5432/database")
        }
        // Each parameter as given, an empty value included: as to libpq, an empty parameter
        // overrides the URL's part and then means the default (`?host=` is the local socket).
        var query: [String: String] = [:]
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            if let entry = Self.harmless[item.name] {
                if let accepted = entry, !accepted.contains(value) {
                    throw PostgresStoreError.invalidURL("Groupie cannot honour \(item.name)=\(value); leave it out or use \(accepted.sorted().joined(separator: " or "))")
                }
                continue
            }
            guard Self.parameters.contains(item.name) else {
                throw PostgresStoreError.invalidURL(
                    "Groupie does not read the parameter '\(item.name)'; it reads \(Self.parameters.map { "'\($0)'" }.joined(separator: ", "))"
                )
            }
            query[item.name] = value
        }
        // A parameter, else the URL's own part (decoded once: `URLComponents.user` and `.path`
        // are decoded already, and decoding again would turn a password's "%2541" into "A"); nil
        // for the default.
        func given(_ name: String, _ part: String? = nil) -> String? {
            let value = query[name] ?? part.map { $0.removingPercentEncoding ?? $0 }
            return value.flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let user = given("user", components.percentEncodedUser) ?? Self.systemUser else {
            throw PostgresStoreError.invalidURL("it names no user (postgres://USER@host/database)")
        }
        let password = given("password", components.percentEncodedPassword)
        let database = given("dbname", String(components.percentEncodedPath.dropFirst()))
        let port: Int
        if let text = given("port") {
            guard let number = Int(text) else {
                throw PostgresStoreError.invalidURL(text.contains(",") ? "Groupie connects to one port, not several ('\(text)')" : "the port must be a number, not '\(text)'")
            }
            port = number
        } else if query["port"] != nil {
            port = 5432
        } else {
            port = components.port ?? 5432
        }
        guard (1...65535).contains(port) else { throw PostgresStoreError.invalidURL("the port must be from 1 to 65535, not \(port)") }
        // `[::1]`: an IPv6 address without the brackets that set it apart in a URL.
        var host = given("host", components.percentEncodedHost) ?? Self.defaultSocketFolder
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.contains(",") else {
            throw PostgresStoreError.invalidURL("Groupie connects to one host, not several ('\(host)'); put a proxy or a virtual address before them")
        }
        var configuration: PostgresClient.Configuration
        // Read for every URL, so that a mistake stops Groupie even where it is not used: over a
        // Unix socket, libpq uses no TLS.
        let encryption = try Encryption(mode: given("sslmode"), rootCertificate: given("sslrootcert"))
        if host.hasPrefix("/") {
            let path = "\(host)/.s.PGSQL.\(port)"
            endpoint = .socket(path)
            configuration = .init(unixSocketPath: path, username: user, password: password, database: database)
        } else {
            endpoint = .tcp(host: host, port: port, encryption: encryption)
            let tls: PostgresClient.Configuration.TLS = if let settings = encryption.configuration {
                encryption == .prefer ? .prefer(settings) : .require(settings)
            } else {
                .disable
            }
            configuration = .init(host: host, port: port, username: user, password: password, database: database, tls: tls)
        }
        if let text = given("pool") {
            guard let pool = Int(text), (1...1000).contains(pool) else {
                throw PostgresStoreError.invalidURL("pool must be a number of connections from 1 to 1000, not '\(text)'")
            }
            configuration.options.maximumConnections = pool
        } else {
            configuration.options.maximumConnections = 20
        }
        // Connections kept open while the instance is idle: a class that arrives at once finds
        // them ready, instead of waiting behind PostgreSQL's start of a backend for each.
        // Fewer than the pool's connections, as postgres-nio asks.
        let most = configuration.options.maximumConnections - 1
        if let text = given("pool_min") {
            guard let minimum = Int(text), (0...most).contains(minimum) else {
                throw PostgresStoreError.invalidURL("pool_min must be a number of connections from 0 to pool - 1 (\(most)), not '\(text)'")
            }
            configuration.options.minimumConnections = minimum
        } else {
            configuration.options.minimumConnections = min(Self.defaultMinimumConnections, most)
        }
        // At least 2 seconds, as libpq has it. libpq waits for ever without one (or with 0); a
        // server that hangs on a connection would hang Groupie's start and its pool, so 0 and
        // none mean 5 seconds here.
        if let text = given("connect_timeout") {
            guard let seconds = Int(text), seconds >= 0 else {
                throw PostgresStoreError.invalidURL("connect_timeout must be a number of seconds, not '\(text)'")
            }
            configuration.options.connectTimeout = .seconds(seconds == 0 ? 5 : max(2, seconds))
        } else {
            configuration.options.connectTimeout = .seconds(5)
        }
        // Group contents come as JSON, whose numbers must keep every digit of a float8 (the
        // default from PostgreSQL 12, unless a database or role says otherwise).
        configuration.options.additionalStartupParameters = [("extra_float_digits", "3")]
            + (given("application_name").map { [("application_name", $0)] } ?? [])
        self.configuration = configuration
        var shown = components
        if shown.password != nil { shown.password = "***" }
        if let items = shown.queryItems, items.contains(where: { $0.name == "password" }) {
            shown.queryItems = items.map { $0.name == "password" ? URLQueryItem(name: "password", value: "***") : $0 }
        }
        redacted = shown.string ?? "postgres://"
    }

    /// The name of the user Groupie runs as: libpq's user when a URL names none. `getpwuid_r`,
    /// since URLs are read on any thread.
    static var systemUser: String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwuid_r(geteuid(), &entry, &buffer, buffer.count, &found) == 0, found != nil, let name = entry.pw_name else { return nil }
        return String(cString: name)
    }

    /// The TLS context of each encryption, made once: a context made reads its trust roots again,
    /// and a connection is tried every half second while PostgreSQL is down.
    private static let madeTLS = Mutex<[Encryption: NIOSSLContext]>([:])

    private static func clientTLS(_ encryption: Encryption, _ configuration: TLSConfiguration) throws -> NIOSSLContext {
        try madeTLS.withLock { made in
            if let context = made[encryption] { return context }
            let context = try NIOSSLContext(configuration: configuration)
            made[encryption] = context
            return context
        }
    }

    /// The configuration of one connection to the same server, database and user as the pool's.
    func connection() throws -> PostgresConnection.Configuration {
        var connection: PostgresConnection.Configuration
        switch endpoint {
        case .socket(let path):
            connection = .init(unixSocketPath: path, username: configuration.username, password: configuration.password, database: configuration.database)
        case .tcp(let host, let port, let encryption):
            let tls: PostgresConnection.Configuration.TLS = if let configuration = encryption.configuration {
                encryption == .prefer
                    ? .prefer(try Self.clientTLS(encryption, configuration)) : .require(try Self.clientTLS(encryption, configuration))
            } else {
                .disable
            }
            connection = .init(host: host, port: port, username: configuration.username, password: configuration.password, database: configuration.database, tls: tls)
        }
        connection.options.connectTimeout = .seconds(Int64(configuration.options.connectTimeout.components.seconds))
        connection.options.additionalStartupParameters = configuration.options.additionalStartupParameters
        return connection
    }
}
