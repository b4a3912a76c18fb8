import ArgumentParser
import Foundation
import GroupieImaging
import GroupieServer
import GroupieSQLite
import GroupieStorage
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `groupie serve`. Its settings are listed once, in `ServerOptions`, which also reads them with
/// swift-configuration. Argument parser can only declare options as properties, one by one, so
/// here it hands the arguments over unparsed, and the help shows the list instead.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the venues of the missions folder.",
        usage: "groupie serve [--config <path>] [--<setting> <value> ...]",
        discussion: ServerOptions.help
    )

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var settings: [String] = []

    func run() async throws {
        // Before anything opens SQLite: its allocations then take no process-wide lock.
        SQLiteStore.turnOffMemoryStatistics()
        MallocArenas.limit()
        Heap.fixMmapThreshold()
        var configuration: ServerConfiguration
        do throws(SettingError) {
            configuration = try await ServerOptions.load(arguments: settings, environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }

        LoggingSystem.bootstrap { [logLevel = configuration.logLevel] label in
            DeferredMetadataLogHandler(label: label, logLevel: logLevel)
        }
        if configuration.publicBaseURL == nil {
            // Without a public URL, QR codes point at the name the certificate is made out to
            // (phones refuse any other), else at this machine's address on the local network.
            if let certificate = configuration.tlsCertificate, let host = TLSFiles.preferredHost(certificate: certificate) {
                configuration.publicBaseURL = configuration.url(ofHost: host)
            } else if configuration.host == "0.0.0.0", let address = LANAddress.first() {
                configuration.publicBaseURL = configuration.url(ofHost: address)
            }
        }
        let tracing: (any Service)?
        do {
            tracing = try GroupieTracing.bootstrap(configuration)
        } catch {
            FileHandle.standardError.write(Data("groupie: traces cannot be sent to \(configuration.otlpEndpoint ?? ""): \(error)\n".utf8))
            throw ExitCode(2)
        }
        let app: any ApplicationProtocol
        let joinAt = configuration.resolvedPublicBaseURL
        do {
            // Said once the port is bound: a server that cannot bind it tells no phone to come.
            app = try await buildApplication(configuration, services: tracing.map { [$0] } ?? []) { _ in
                FileHandle.standardError.write(Data("groupie: phones join at \(joinAt) (set --public-url to change)\n".utf8))
            }
        } catch let error as StartupError {
            FileHandle.standardError.write(Data("groupie: \(error.description)\n".utf8))
            throw ExitCode(2)
        }
        do {
            try await app.runService()
        } catch let error as IOError where error.errnoCode == EADDRINUSE || error.errnoCode == EACCES {
            FileHandle.standardError.write(Data("groupie: \(Self.cannotListen(configuration, errno: error.errnoCode)).\n".utf8))
            throw ExitCode(2)
        }
    }

    /// Which of the server's ports could not be bound, and why, in one sentence: the error does
    /// not say which, so each port is tried here again (both are free once the server ended).
    static func cannotListen(_ configuration: ServerConfiguration, errno code: Int32) -> String {
        var ports = [(configuration.port, "--port")]
        if let redirect = configuration.httpRedirectPort { ports.append((redirect, "--http-redirect-port")) }
        if code == EADDRINUSE, ports.count > 1, let taken = ports.first(where: { isInUse(host: configuration.host, port: $0.0) }) {
            ports = [taken]
        }
        let named = ports.map { "port \($0.0)" }.joined(separator: " or ")
        let options = ports.map(\.1).joined(separator: " or ")
        let why = code == EADDRINUSE
            ? "another program uses it; stop that program or choose another \(options)"
            : "this user may not bind it (ports below 1024 need a privilege); choose another \(options)"
        return "cannot listen on \(configuration.host) \(named): \(why)"
    }

    /// Whether another program listens on `port` of `host`: a bind of one's own fails so.
    static func isInUse(host: String, port: Int) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else { return false }
        defer { freeaddrinfo(found) }
        let descriptor = socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        return bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) != 0 && errno == EADDRINUSE
    }
}
