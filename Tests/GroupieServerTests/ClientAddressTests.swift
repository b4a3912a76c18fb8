import Testing

@testable import GroupieServer

/// The address a per-address limit counts: one client is one key, however its network shows it.
@Suite("Client addresses")
struct ClientAddressTests {
    @Test("IPv4 as it is, also shown as IPv4-mapped IPv6; IPv6 by its /64", arguments: [
        ("10.0.0.1", "10.0.0.1"),
        ("::ffff:10.0.0.1", "10.0.0.1"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"),
        ("2001:0db8:0001:0002:ffff::1", "2001:db8:1:2::/64"),
        ("2001:db8:1:3::1", "2001:db8:1:3::/64"),
        ("::1", "0:0:0:0::/64"),
        ("unknown", "unknown"),
        ("not:an:address", "not:an:address"),
    ])
    func key(address: String, expected: String) {
        #expect(ClientAddress.key(address) == expected)
    }
}
