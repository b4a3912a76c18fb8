/// Writes JSON straight into bytes. For the few answers on the hot path, where
/// Foundation's `JSONEncoder` (which builds a tree of values first) cost more than the
/// database read; everything else is encoded with `Codable`.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Per open object or array: whether nothing has been written in it yet.
    private var atStart: [Bool] = [true]

    init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        atStart.append(true)
        body(&self)
        atStart.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func array(_ body: (inout JSONWriter) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        atStart.append(true)
        body(&self)
        atStart.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func key(_ key: String) {
        separate()
        quoted(key)
        bytes.append(UInt8(ascii: ":"))
        atStart[atStart.count - 1] = true
    }

    mutating func value(_ text: String) {
        separate()
        quoted(text)
    }

    mutating func value(_ number: Int) {
        separate()
        bytes.append(contentsOf: String(number).utf8)
    }

    mutating func value(_ flag: Bool) {
        separate()
        bytes.append(contentsOf: (flag ? "true" : "false").utf8)
    }

    /// `"key": value`, left out when the value is nil (as `Codable` does).
    mutating func field(_ name: String, _ text: String?) {
        guard let text else { return }
        key(name)
        value(text)
    }

    mutating func field(_ name: String, _ number: Int) {
        key(name)
        value(number)
    }

    mutating func field(_ name: String, _ flag: Bool) {
        key(name)
        value(flag)
    }

    private mutating func separate() {
        if atStart[atStart.count - 1] {
            atStart[atStart.count - 1] = false
        } else {
            bytes.append(UInt8(ascii: ","))
        }
    }

    private mutating func quoted(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default:
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
