// libFuzzer target: the ZIP writer of album downloads (`ZipStream`). The input is decoded
// into a series of entries (names, including huge ones, data, dates, time zones), written,
// and the archive is read back with an independent reader: local headers, central directory,
// ZIP64 records, sizes and CRC-32s must all agree with what was written.
//
// Input, read front to back (bytes past the end read as 0):
//   u8 zip64 mode (0: default threshold; 1: 0, every entry ZIP64; 2: a u16 threshold), then
//   u8 time zone, then entries until the input ends (at most 64), each:
//   u8 op: low 2 bits = name kind (0 raw: u8 length + bytes; 1 huge: u16 + 16384 repeats
//   of one of five scalars; 2 the album's own path: a folder and a file stem through
//   safeName and uniqueName; 3 uniqueName of a raw name); bit 2 = data repeated (u8 value,
//   u16 * 4 bytes) instead of raw (u16 length, capped by what is left);
//   u32 modification time (seconds since 1970 as a signed value, times 4).
import CFuzzDriver
import Foundation
@testable import GroupieServer
import NIOCore

private struct Input {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0

    var isAtEnd: Bool { index >= bytes.count }

    mutating func u8() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func u16() -> Int { Int(u8()) | Int(u8()) << 8 }

    mutating func u32() -> UInt32 { UInt32(u16()) | UInt32(u16()) << 16 }

    mutating func take(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, index + count)
        defer { index = end }
        return Array(bytes[index..<end])
    }

    mutating func rawName() -> String {
        String(decoding: take(Int(u8())), as: UTF8.self)
    }
}

private let timeZones: [TimeZone] = ["UTC", "Europe/Zurich", "America/St_Johns", "Asia/Kathmandu", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Australia/Lord_Howe"]
    .map { TimeZone(identifier: $0) ?? TimeZone(secondsFromGMT: 0)! }
private let hugeUnits: [String] = ["a", "é", "€", "😀", "/"]
private let reservedScalars = Set("/\\:*?\"<>|".unicodeScalars)

/// What `safeName` promises: no separators, control or reserved characters, not empty, at
/// most 80 characters.
private func checkSafeName(_ name: String, from text: String) {
    precondition(!name.isEmpty, "safeName gave an empty name")
    precondition(name.count <= 80, "safeName gave \(name.count) characters")
    for scalar in name.unicodeScalars {
        let category = scalar.properties.generalCategory
        precondition(!reservedScalars.contains(scalar), "safeName(\(text.debugDescription)) kept \(scalar.escaped(asASCII: true)): \(name.debugDescription)")
        precondition(category != .control && (category != .format || scalar == "\u{200D}"), "safeName(\(text.debugDescription)) kept control/format \(scalar.escaped(asASCII: true))")
    }
}

private struct Written {
    var name: [UInt8]
    var data: [UInt8]
    var time: UInt16
    var date: UInt16
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    var input = Input(bytes: UnsafeBufferPointer(start: data, count: size))
    var zip = ZipStream()
    switch input.u8() % 3 {
    case 1: zip.zip64From = 0
    case 2: zip.zip64From = UInt64(input.u16())
    default: break
    }
    let timeZone = timeZones[Int(input.u8()) % timeZones.count]
    var archive: [UInt8] = []
    var written: [Written] = []
    var unique: Set<String> = []
    var total = 0

    while !input.isAtEnd, written.count < 64 {
        let op = input.u8()
        let name: String
        switch op & 3 {
        case 0:
            name = input.rawName()
        case 1:
            let count = 16384 + input.u16()
            name = String(repeating: hugeUnits[Int(input.u8()) % hugeUnits.count], count: count)
        case 2:
            let folderText = input.rawName(), stemText = input.rawName()
            let folder = ZipStream.safeName(folderText), stem = ZipStream.safeName(stemText)
            checkSafeName(folder, from: folderText)
            checkSafeName(stem, from: stemText)
            name = zip.uniqueName(String(format: "%02d ", written.count + 1) + folder + "/" + stem + ".jpg")
            precondition(unique.insert(name.lowercased()).inserted, "uniqueName repeated \(name.debugDescription)")
        default:
            name = zip.uniqueName(input.rawName())
            precondition(unique.insert(name.lowercased()).inserted, "uniqueName repeated \(name.debugDescription)")
        }
        var bytes: [UInt8]
        if op & 4 != 0 {
            let value = input.u8()
            bytes = [UInt8](repeating: value, count: input.u16() * 4)
        } else {
            bytes = input.take(input.u16())
        }
        total += bytes.count + name.utf8.count
        if total > 2 << 20 { bytes = [] }  // keeps an input to a few MB (and fast)
        let seconds = Double(Int32(bitPattern: input.u32())) * 4
        let modified = Date(timeIntervalSince1970: seconds)
        // `entry` may become `throws` for names it cannot store: a thrown error is an answer,
        // and the entry is then simply not in the archive. (`try?` on a call that does not
        // throw yet only draws a warning.)
        guard let local = try? zip.entry(name: name, data: Data(bytes), modified: modified, timeZone: timeZone) else { continue }
        let (time, date) = ZipStream.dos(modified, timeZone: timeZone)
        written.append(Written(name: Array(name.utf8), data: bytes, time: time, date: date))
        archive.append(contentsOf: local.readableBytesView)
    }
    archive.append(contentsOf: zip.finish().readableBytesView)
    ZipReader(archive).check(against: written)
    return 0
}

// MARK: - An independent reader

private let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
    var c = UInt32(n)
    for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
    return c
}

private func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
    var c: UInt32 = 0xFFFF_FFFF
    for byte in bytes { c = crcTable[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
    return c ^ 0xFFFF_FFFF
}

private struct ZipReader {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func u16(_ at: Int) -> Int {
        precondition(at >= 0 && at + 2 <= bytes.count, "read past the archive's end at \(at)")
        return Int(bytes[at]) | Int(bytes[at + 1]) << 8
    }

    func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }

    func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) | UInt64(u32(at + 4)) << 32 }

    func slice(_ at: Int, _ count: Int) -> ArraySlice<UInt8> {
        precondition(at >= 0 && count >= 0 && at + count <= bytes.count, "a field runs past the archive's end")
        return bytes[at..<(at + count)]
    }

    func checkDOS(time: Int, date: Int) {
        precondition(time >> 11 <= 23 && (time >> 5) & 0x3F <= 59 && time & 0x1F <= 29, "bad DOS time \(time)")
        precondition((1...12).contains((date >> 5) & 0xF) && (1...31).contains(date & 0x1F), "bad DOS date \(date)")
    }

    func check(against written: [Written]) {
        // End of central directory: the last 22 bytes (no comment).
        let eocd = bytes.count - 22
        precondition(eocd >= 0 && u32(eocd) == 0x0605_4B50, "no end of central directory record at the end")
        precondition(u16(eocd + 4) == 0 && u16(eocd + 6) == 0, "disk numbers")
        precondition(u16(eocd + 20) == 0, "comment length")
        var count = u16(eocd + 10)
        precondition(u16(eocd + 8) == count, "entries on this disk differ from total")
        var directorySize = UInt64(u32(eocd + 12))
        var directoryStart = UInt64(u32(eocd + 16))
        var directoryEnd = eocd
        let isZip64 = count == 0xFFFF || directorySize == 0xFFFF_FFFF || directoryStart == 0xFFFF_FFFF
        if isZip64 {
            precondition(count == 0xFFFF && directorySize == 0xFFFF_FFFF && directoryStart == 0xFFFF_FFFF, "ZIP64 end record with some fields not deferred")
            let locator = eocd - 20
            precondition(locator >= 0 && u32(locator) == 0x0706_4B50, "no ZIP64 locator before the end record")
            precondition(u32(locator + 4) == 0 && u32(locator + 16) == 1, "ZIP64 locator disks")
            let record = Int(u64(locator + 8))
            precondition(record == locator - 56, "ZIP64 end record at \(record), expected right before the locator at \(locator - 56)")
            precondition(u32(record) == 0x0606_4B50, "no ZIP64 end record")
            precondition(u64(record + 4) == 44, "ZIP64 end record size")
            precondition(u16(record + 14) >= 45, "ZIP64 version needed")
            precondition(u32(record + 16) == 0 && u32(record + 20) == 0, "ZIP64 end record disks")
            let count64 = u64(record + 24)
            precondition(u64(record + 32) == count64, "ZIP64 entries on this disk differ from total")
            precondition(count64 < UInt64(Int.max))
            count = Int(count64)
            directorySize = u64(record + 40)
            directoryStart = u64(record + 48)
            directoryEnd = record
        }
        precondition(count == written.count, "directory counts \(count) entries, \(written.count) were written")
        precondition(directoryStart + directorySize == UInt64(directoryEnd), "central directory \(directoryStart)+\(directorySize) does not end at \(directoryEnd)")

        var central = Int(directoryStart)
        var local = 0
        for (number, entry) in written.enumerated() {
            // Central directory header.
            precondition(u32(central) == 0x0201_4B50, "entry \(number): no central header at \(central)")
            let needed = u16(central + 6)
            precondition(u16(central + 8) == 0x0800, "entry \(number): flags")
            precondition(u16(central + 10) == 0, "entry \(number): not stored")
            precondition(u16(central + 12) == Int(entry.time) && u16(central + 14) == Int(entry.date), "entry \(number): central date")
            checkDOS(time: u16(central + 12), date: u16(central + 14))
            let crc = u32(central + 16)
            precondition(crc == crc32(entry.data[...]), "entry \(number): central CRC \(crc)")
            precondition(u32(central + 20) == UInt32(entry.data.count) && u32(central + 24) == UInt32(entry.data.count), "entry \(number): central sizes")
            let nameLength = u16(central + 28), extraLength = u16(central + 30), commentLength = u16(central + 32)
            precondition(u16(central + 34) == 0, "entry \(number): disk")
            var offset = UInt64(u32(central + 42))
            precondition(Array(slice(central + 46, nameLength)) == entry.name, "entry \(number): central name differs (\(nameLength) bytes, \(entry.name.count) written)")
            if offset == 0xFFFF_FFFF {
                precondition(needed >= 45, "entry \(number): ZIP64 offset with version needed \(needed)")
                let extra = central + 46 + nameLength
                precondition(extraLength >= 12 && u16(extra) == 1 && u16(extra + 2) == 8, "entry \(number): no ZIP64 extra field for its offset")
                offset = u64(extra + 4)
            }
            precondition(offset == UInt64(local), "entry \(number): central offset \(offset), local header is at \(local)")
            central += 46 + nameLength + extraLength + commentLength

            // Local header and data.
            precondition(u32(local) == 0x0403_4B50, "entry \(number): no local header at \(local)")
            precondition(u16(local + 6) == 0x0800 && u16(local + 8) == 0, "entry \(number): local flags or method")
            precondition(u16(local + 10) == Int(entry.time) && u16(local + 12) == Int(entry.date), "entry \(number): local date")
            precondition(u32(local + 14) == crc, "entry \(number): local CRC differs from central")
            precondition(u32(local + 18) == UInt32(entry.data.count) && u32(local + 22) == UInt32(entry.data.count), "entry \(number): local sizes")
            let localNameLength = u16(local + 26), localExtraLength = u16(local + 28)
            precondition(Array(slice(local + 30, localNameLength)) == entry.name, "entry \(number): local name differs")
            let dataStart = local + 30 + localNameLength + localExtraLength
            precondition(slice(dataStart, entry.data.count).elementsEqual(entry.data), "entry \(number): data differs")
            local = dataStart + entry.data.count
        }
        precondition(local == Int(directoryStart), "entries end at \(local), central directory starts at \(directoryStart)")
        precondition(central == Int(directoryStart + directorySize), "central headers end at \(central), directory says \(directoryStart + directorySize)")
    }
}

// SwiftPM's `main` runs this file's top-level code: hand over to libFuzzer, which calls
// LLVMFuzzerTestOneInput above with each input.
exit(groupie_fuzz_main(CommandLine.argc, CommandLine.unsafeArgv))
