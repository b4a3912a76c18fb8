import Foundation

/// RFC 3339 timestamps in UTC, to the second. Written by hand because Foundation's ISO 8601
/// formatting dominated encoding the group document, the busiest answer of the server.
enum Timestamp {
    static func string(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var bytes = [UInt8](repeating: 0, count: 20)
        func put(_ value: Int32, at index: Int, digits: Int) {
            var value = value
            for offset in stride(from: digits - 1, through: 0, by: -1) {
                bytes[index + offset] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            }
        }
        put(parts.tm_year + 1900, at: 0, digits: 4)
        bytes[4] = UInt8(ascii: "-")
        put(parts.tm_mon + 1, at: 5, digits: 2)
        bytes[7] = UInt8(ascii: "-")
        put(parts.tm_mday, at: 8, digits: 2)
        bytes[10] = UInt8(ascii: "T")
        put(parts.tm_hour, at: 11, digits: 2)
        bytes[13] = UInt8(ascii: ":")
        put(parts.tm_min, at: 14, digits: 2)
        bytes[16] = UInt8(ascii: ":")
        put(parts.tm_sec, at: 17, digits: 2)
        bytes[19] = UInt8(ascii: "Z")
        return String(decoding: bytes, as: UTF8.self)
    }
}
