import Foundation

/// Ports for the `groupie serve` processes the tests start.
public enum TestPorts {
    /// A TCP port that no socket holds on 127.0.0.1 now, below Linux's ephemeral range (32768
    /// up): a port from that range may be taken meanwhile as the local end of any outgoing
    /// connection, and the suite makes hundreds (to PostgreSQL, among others), while a server
    /// may bind its port only seconds after it was chosen (`serve` waits for PostgreSQL first).
    public static func unused() -> Int {
        while true {
            let port = Int.random(in: 20_000..<32_768)
            if isFree(port) { return port }
        }
    }

    static func isFree(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
