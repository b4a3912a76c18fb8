import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Whether the public URL, which QR codes carry, leads to this server. A running server says
/// which instance it is in the `Groupie-Instance` header of `/healthz`; when none runs, the
/// doctor answers on the server's port itself for the moment of the check.
extension Doctor {
    public func checkPublicURL() async -> [DoctorFinding] {
        let base = configuration.resolvedPublicBaseURL
        guard let publicURL = URL(string: base + "/healthz") else { return [.failure("The public URL \(base) is not a URL.")] }
        let local = URL(string: "http://127.0.0.1:\(configuration.port)/healthz")!
        let expected: Set<String>
        var listener: ProbeListener?
        if case .success(let answer) = await Self.fetch(local), let instance = answer.instance {
            // A running server; any instance that shares this data folder will do.
            expected = Set(DataRestore.runningInstances(in: configuration.dataDirectory) + [instance])
        } else {
            let token = "doctor-" + UUID().uuidString.lowercased()
            do {
                listener = try ProbeListener(host: configuration.host, port: configuration.port, token: token)
            } catch {
                return [.warning("The port \(configuration.port) is taken by something that is not Groupie, so whether \(base) reaches this machine was not checked.")]
            }
            expected = [token]
        }
        defer { listener?.stop() }
        // Once more after a failure: a busy machine may miss one answer.
        var fetched = await Self.fetch(publicURL)
        if case .failure = fetched { fetched = await Self.fetch(publicURL) }
        let answer: (status: Int, instance: String?)
        switch fetched {
        case .success(let got): answer = got
        case .failure(let error):
            return [.failure("The public URL \(base) does not reach this server (\(publicURL.absoluteString): \(error.description)): phones that scan the QR codes would find nothing.")]
        }
        guard let instance = answer.instance, expected.contains(instance) else {
            return [.failure("The public URL \(base) reaches another server (it answered \(answer.status) without this server's mark): QR codes would lead elsewhere.")]
        }
        return [.ok("The public URL \(base) reaches this server.")]
    }

    /// A GET of `url` within seconds: its status and `Groupie-Instance` header, or why nothing
    /// answered.
    static func fetch(_ url: URL) async -> Result<(status: Int, instance: String?), OperationFailure> {
        var request = URLRequest(url: url)
        request.timeoutInterval = 10
        return await withCheckedContinuation { continuation in
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = 10
            configuration.timeoutIntervalForResource = 15
            let session = URLSession(configuration: configuration)
            session.dataTask(with: request) { _, response, error in
                guard let response = response as? HTTPURLResponse else {
                    return continuation.resume(returning: .failure(OperationFailure(error.map { $0.localizedDescription } ?? "no answer")))
                }
                continuation.resume(returning: .success((response.statusCode, response.value(forHTTPHeaderField: "Groupie-Instance"))))
            }.resume()
            session.finishTasksAndInvalidate()
        }
    }
}

/// A listener on the server's port that answers every request with `token` in the
/// `Groupie-Instance` header, while the doctor checks the public URL and no server runs.
final class ProbeListener: Sendable {
    private let socket: Int32

    init(host: String, port: Int, token: String) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let address = found else { throw OperationFailure("\(host) cannot be resolved") }
        defer { freeaddrinfo(found) }
        let descriptor = Glibc.socket(address.pointee.ai_family, address.pointee.ai_socktype, address.pointee.ai_protocol)
        guard descriptor >= 0 else { throw OperationFailure("no socket") }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        guard bind(descriptor, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0, listen(descriptor, 16) == 0 else {
            close(descriptor)
            throw OperationFailure("port \(port) is taken")
        }
        socket = descriptor
        let answer = "HTTP/1.1 200 OK\r\nGroupie-Instance: \(token)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        let thread = Thread {
            while true {
                let client = accept(descriptor, nil, nil)
                guard client >= 0 else { return }
                var buffer = [UInt8](repeating: 0, count: 4096)
                _ = read(client, &buffer, buffer.count)
                _ = answer.withCString { write(client, $0, strlen($0)) }
                close(client)
            }
        }
        thread.start()
    }

    /// Ends the listener; the thread's `accept` returns at once.
    func stop() {
        shutdown(socket, Int32(SHUT_RDWR))
        close(socket)
    }
}
