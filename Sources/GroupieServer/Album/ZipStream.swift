import Foundation
import GroupieImaging
import NIOCore

/// Writes a ZIP archive entry by entry, for streaming: each entry's bytes go out as soon as
/// they are known, and only the small central directory is kept until the end. Entries are
/// stored, not deflated: photos and collages are JPEG or PNG already. Names are UTF-8 (flag
/// bit 11). ZIP64 records are added only when the archive passes 4 GiB, so that ordinary
/// albums open everywhere.
///
/// No field can overflow: a name longer than a ZIP header can say (65,535 bytes) or an entry
/// of 4 GiB or more is refused with `TooLong` before anything of it is written, and offsets
/// and counts past 32 and 16 bits go into ZIP64 records.
struct ZipStream {
    /// An entry the format cannot describe without ZIP64 entry sizes, which this writer does
    /// not write: names of 65,536 bytes or more, data of 4 GiB or more.
    struct TooLong: Error, Equatable {
        var field: String
        var length: UInt64
    }

    static let maximumNameBytes = Int(UInt16.max)
    static let maximumEntryBytes = UInt64(UInt32.max) - 1

    private struct Central {
        var name: [UInt8]
        var crc: UInt32
        var size: UInt64
        var offset: UInt64
        var dosTime: UInt16
        var dosDate: UInt16
    }

    /// Offsets from here on are written as ZIP64; lowered by the tests to check those records.
    var zip64From: UInt64 = 0xFFFF_FFFF
    private var entries: [Central] = []
    private var offset: UInt64 = 0
    private var names: Set<String> = []

    /// A name not used yet in the archive: "a.jpg", then "a (2).jpg", ...
    mutating func uniqueName(_ proposed: String) -> String {
        var name = proposed
        var counter = 2
        while names.contains(name.lowercased()) {
            let dot = proposed.lastIndex(of: ".")
            let stem = dot.map { String(proposed[..<$0]) } ?? proposed
            let ext = dot.map { String(proposed[$0...]) } ?? ""
            name = "\(stem) (\(counter))\(ext)"
            counter += 1
        }
        names.insert(name.lowercased())
        return name
    }

    /// The local header and data of one entry.
    mutating func entry(name: String, data: Data, modified: Date, timeZone: TimeZone) throws -> ByteBuffer {
        var buffer = try entryHeader(name: name, size: UInt64(data.count), crc: CRC32.checksum(data), modified: modified, timeZone: timeZone, reserving: data.count)
        buffer.writeBytes(data)
        return buffer
    }

    /// The local header of one entry whose `size` bytes (of checksum `crc`) the caller writes
    /// right after it, as a file is streamed.
    mutating func entryHeader(name: String, size: UInt64, crc: UInt32, modified: Date, timeZone: TimeZone, reserving extra: Int = 0) throws -> ByteBuffer {
        let nameBytes = Array(name.utf8)
        guard nameBytes.count <= Self.maximumNameBytes else { throw TooLong(field: "name", length: UInt64(nameBytes.count)) }
        guard size <= Self.maximumEntryBytes else { throw TooLong(field: "data", length: size) }
        let (time, date) = Self.dos(modified, timeZone: timeZone)
        var buffer = ByteBufferAllocator().buffer(capacity: 30 + nameBytes.count + extra)
        buffer.writeInteger(UInt32(0x0403_4B50), endianness: .little)
        buffer.writeInteger(UInt16(20), endianness: .little)  // version needed
        buffer.writeInteger(UInt16(0x0800), endianness: .little)  // UTF-8 names
        buffer.writeInteger(UInt16(0), endianness: .little)  // stored
        buffer.writeInteger(time, endianness: .little)
        buffer.writeInteger(date, endianness: .little)
        buffer.writeInteger(crc, endianness: .little)
        buffer.writeInteger(UInt32(size), endianness: .little)
        buffer.writeInteger(UInt32(size), endianness: .little)
        buffer.writeInteger(UInt16(nameBytes.count), endianness: .little)
        buffer.writeInteger(UInt16(0), endianness: .little)
        buffer.writeBytes(nameBytes)
        entries.append(Central(name: nameBytes, crc: crc, size: size, offset: offset, dosTime: time, dosDate: date))
        offset += UInt64(buffer.readableBytes) + size
        return buffer
    }

    /// The central directory and its end records.
    func finish() -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: entries.count * 80 + 100)
        let directoryStart = offset
        let needs64 = directoryStart >= zip64From || entries.count >= 0xFFFF
        for entry in entries {
            let far = entry.offset >= zip64From
            buffer.writeInteger(UInt32(0x0201_4B50), endianness: .little)
            buffer.writeInteger(UInt16(far ? 45 : 20) | 0x0300, endianness: .little)  // made by: Unix
            buffer.writeInteger(UInt16(far ? 45 : 20), endianness: .little)
            buffer.writeInteger(UInt16(0x0800), endianness: .little)
            buffer.writeInteger(UInt16(0), endianness: .little)
            buffer.writeInteger(entry.dosTime, endianness: .little)
            buffer.writeInteger(entry.dosDate, endianness: .little)
            buffer.writeInteger(entry.crc, endianness: .little)
            buffer.writeInteger(UInt32(entry.size), endianness: .little)
            buffer.writeInteger(UInt32(entry.size), endianness: .little)
            buffer.writeInteger(UInt16(entry.name.count), endianness: .little)
            buffer.writeInteger(UInt16(far ? 12 : 0), endianness: .little)  // extra
            buffer.writeInteger(UInt16(0), endianness: .little)  // comment
            buffer.writeInteger(UInt16(0), endianness: .little)  // disk
            buffer.writeInteger(UInt16(0), endianness: .little)  // internal attributes
            buffer.writeInteger(UInt32(0o100644) << 16, endianness: .little)  // -rw-r--r--
            buffer.writeInteger(far ? UInt32.max : UInt32(entry.offset), endianness: .little)
            buffer.writeBytes(entry.name)
            if far {
                buffer.writeInteger(UInt16(0x0001), endianness: .little)
                buffer.writeInteger(UInt16(8), endianness: .little)
                buffer.writeInteger(entry.offset, endianness: .little)
            }
        }
        let directorySize = UInt64(buffer.readableBytes)
        if needs64 {
            let recordOffset = directoryStart + directorySize
            buffer.writeInteger(UInt32(0x0606_4B50), endianness: .little)
            buffer.writeInteger(UInt64(44), endianness: .little)
            buffer.writeInteger(UInt16(45) | 0x0300, endianness: .little)
            buffer.writeInteger(UInt16(45), endianness: .little)
            buffer.writeInteger(UInt32(0), endianness: .little)
            buffer.writeInteger(UInt32(0), endianness: .little)
            buffer.writeInteger(UInt64(entries.count), endianness: .little)
            buffer.writeInteger(UInt64(entries.count), endianness: .little)
            buffer.writeInteger(directorySize, endianness: .little)
            buffer.writeInteger(directoryStart, endianness: .little)
            buffer.writeInteger(UInt32(0x0706_4B50), endianness: .little)
            buffer.writeInteger(UInt32(0), endianness: .little)
            buffer.writeInteger(recordOffset, endianness: .little)
            buffer.writeInteger(UInt32(1), endianness: .little)
        }
        buffer.writeInteger(UInt32(0x0605_4B50), endianness: .little)
        buffer.writeInteger(UInt16(0), endianness: .little)
        buffer.writeInteger(UInt16(0), endianness: .little)
        let count = UInt16(min(entries.count, 0xFFFF))
        buffer.writeInteger(needs64 ? UInt16.max : count, endianness: .little)
        buffer.writeInteger(needs64 ? UInt16.max : count, endianness: .little)
        buffer.writeInteger(needs64 ? UInt32.max : UInt32(directorySize), endianness: .little)
        buffer.writeInteger(needs64 ? UInt32.max : UInt32(directoryStart), endianness: .little)
        buffer.writeInteger(UInt16(0), endianness: .little)
        return buffer
    }

    /// MS-DOS time and date, which ZIP headers carry, in the venue's time zone.
    static func dos(_ date: Date, timeZone: TimeZone) -> (time: UInt16, date: UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let year = max(1980, min(2107, c.year ?? 1980))
        let time = UInt16((c.hour ?? 0) << 11 | (c.minute ?? 0) << 5 | (c.second ?? 0) / 2)
        let day = UInt16((year - 1980) << 9 | (c.month ?? 1) << 5 | (c.day ?? 1))
        return (time, day)
    }

    /// A file or folder name safe on every system: no separators, control or reserved
    /// characters, not empty, at most 80 characters and 240 bytes of UTF-8 (file systems
    /// allow 255), shortened at a word's end (`EntryName`).
    static func safeName(_ text: String) -> String {
        EntryName.safe(text)
    }
}
