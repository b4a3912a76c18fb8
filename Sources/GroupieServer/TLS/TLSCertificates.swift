import Foundation
import Logging
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The certificate that new HTTPS connections get. The files are read again on SIGHUP and when
/// they change (a renewal replaces them), and a new certificate is taken up only when it passes
/// the checks of the start; connections already open keep the one they began with, so nothing
/// is dropped. Each handshake asks for the current one through swift-nio-ssl's context callback.
final class TLSCertificates: Service, Sendable {
    let certificatePath: String
    let keyPath: String
    /// The public URL's host, which a new certificate must name as the first one did.
    let host: String?
    private let interval: Duration
    private let fileIO: FileIO
    private let clock: @Sendable () -> Date
    private let logger: Logger
    private let state: Mutex<(identity: TLSIdentity, stamp: FileStamp?)>

    /// The first certificate, read and checked before anything else is opened: one that would
    /// be refused stops the start with a sentence.
    struct Start: Sendable {
        let certificate: String
        let key: String
        let host: String?
        let identity: TLSIdentity
        let stamp: FileStamp

        init?(_ configuration: ServerConfiguration) throws(StartupError) {
            if let problem = Self.problem(of: configuration) { throw StartupError(description: problem) }
            guard let certificate = configuration.tlsCertificate, let key = configuration.tlsKey else { return nil }
            self.certificate = certificate
            self.key = key
            host = URL(string: configuration.resolvedPublicBaseURL)?.host
            stamp = FileStamp(certificate, key)
            // A hangup before the service listens for it must not end the server, as it would by default.
            signal(SIGHUP, SIG_IGN)
            do {
                identity = try TLSCertificates.read(certificate: certificate, key: key, host: host, now: configuration.clock())
            } catch {
                throw StartupError(description: error.description)
            }
        }

        /// What is wrong with the HTTPS settings taken together, in one sentence.
        static func problem(of configuration: ServerConfiguration) -> String? {
            if (configuration.tlsCertificate == nil) != (configuration.tlsKey == nil) {
                return "--tls-certificate and --tls-key go together: give both files for HTTPS, or neither for plain HTTP."
            }
            if let redirect = configuration.httpRedirectPort {
                guard configuration.servesTLS else {
                    return "--http-redirect-port redirects to HTTPS, so it needs --tls-certificate and --tls-key."
                }
                guard redirect != configuration.port else {
                    return "--http-redirect-port must differ from --port (\(redirect)), which serves HTTPS."
                }
            }
            if configuration.servesTLS, let url = configuration.publicBaseURL, !url.lowercased().hasPrefix("https://") {
                return "With --tls-certificate the public URL must start with https://, not '\(url)'."
            }
            return nil
        }
    }

    init(_ start: Start, interval: Duration, fileIO: FileIO, clock: @escaping @Sendable () -> Date, logger: Logger) {
        certificatePath = start.certificate
        keyPath = start.key
        host = start.host
        self.interval = interval
        self.fileIO = fileIO
        self.clock = clock
        self.logger = logger
        state = Mutex((start.identity, start.stamp))
    }

    var identity: TLSIdentity { state.withLock { $0.identity } }

    /// How long a closing connection waits for the peer's close_notify: a round trip on a
    /// phone's Wi-Fi, not the seconds a stop would wait for each kept-alive phone.
    static let closeNotifyPatience: TimeAmount = .milliseconds(750)

    /// swift-nio-ssl's server configuration: the first certificate, replaced for each handshake
    /// by the current one.
    var configuration: TLSConfiguration {
        let first = identity
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: first.chainSources, privateKey: .privateKey(first.key))
        // swift-nio-ssl would take TLS 1.0 and 1.1, which browsers have dropped.
        configuration.minimumTLSVersion = .tlsv12
        // A connection the server closes (its idle time over, or the server stopping) waits this
        // long for the phone's close_notify before it is dropped: 5 s by default, which a stop
        // with a kept-alive phone connection then took in full.
        configuration.shutdownTimeout = Self.closeNotifyPatience
        configuration.sslContextCallback = { [self] _, promise in
            let identity = self.identity
            var override = NIOSSLContextConfigurationOverride()
            override.certificateChain = identity.chainSources
            override.privateKey = .privateKey(identity.key)
            promise.succeed(override)
        }
        return configuration
    }

    func run() async throws {
        let hangups = await UnixSignalsSequence(trapping: .sighup)
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in hangups.cancelOnGracefulShutdown() {
                    await self.reload(always: true)
                }
            }
            group.addTask {
                while !Task.isShuttingDownGracefully, !Task.isCancelled {
                    do {
                        try await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
                    } catch {
                        return
                    }
                    await self.reload(always: false)
                }
            }
        }
    }

    /// Reads the files again when they changed since the last reading (or `always`, on SIGHUP),
    /// on a thread of the file pool. A certificate that fails a check is logged and not used.
    func reload(always: Bool) async {
        let (certificatePath, keyPath, host, now) = (self.certificatePath, self.keyPath, self.host, clock())
        let read: (FileStamp?, Result<TLSIdentity, TLSFileError>)?
        do {
            read = try await fileIO.run { [self] in
                let stamp = FileStamp(certificatePath, keyPath)
                guard always || stamp != self.state.withLock({ $0.stamp }) else { return nil }
                return (stamp, Result { () throws(TLSFileError) in try Self.read(certificate: certificatePath, key: keyPath, host: host, now: now, serving: true) })
            }
        } catch {
            return  // the pool has stopped: the server is stopping
        }
        guard let (stamp, result) = read else { return }
        switch result {
        case .success(let identity):
            state.withLock { $0 = (identity, stamp) }
            logger.notice(
                "new HTTPS connections get the certificate for \(identity.names.joined(separator: ", ")), valid until \(identity.notValidAfter.formatted(.iso8601))",
                metadata: ["certificate": "\(StartupCheck.absolute(certificatePath))"]
            )
        case .failure(let error):
            // Not read again until the files change once more (a renewal half written).
            state.withLock { $0.stamp = stamp }
            logger.error("\(error.description) New HTTPS connections keep the certificate valid until \(identity.notValidAfter.formatted(.iso8601)).")
        }
    }

    private static func read(certificate: String, key: String, host: String?, now: Date, serving: Bool = false) throws(TLSFileError) -> TLSIdentity {
        let identity = try TLSIdentity.read(certificate: certificate, key: key, now: now, serving: serving)
        if let host { try identity.requireNamed(host, certificatePath: certificate) }
        return identity
    }
}

/// What tells that a file was replaced or written: its device, inode, size and time of change,
/// through symbolic links (certbot's `live/` names point at new files after each renewal).
struct FileStamp: Equatable, Sendable {
    private var parts: [Int] = []

    init(_ paths: String...) {
        for path in paths {
            var info = stat()
            guard stat(path, &info) == 0 else {
                parts += [-1]
                continue
            }
            parts += [Int(info.st_dev), Int(info.st_ino), Int(info.st_size), Int(info.st_mtim.tv_sec), Int(info.st_mtim.tv_nsec), Int(info.st_ctim.tv_sec)]
        }
    }
}
