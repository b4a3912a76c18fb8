import Foundation
import GroupieCore
import GroupieStorage

/// The data folder, its disk, the fonts, the clock and the time zones.
extension Doctor {
    /// What a photo takes on disk when the data folder has too few to tell: a phone's JPEG of
    /// about 4 MB kept twice (as received and as served), its display and thumb sizes.
    static let defaultBytesPerPhoto: Int64 = 9 << 20
    /// Room kept for the database, collages and logs beside the photos.
    static let reserveBytes: Int64 = 512 << 20

    func checkDataFolder() -> [DoctorFinding] {
        let path = configuration.dataDirectory
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            let parent = Self.existingAncestor(of: path)
            return access(parent, W_OK | X_OK) == 0
                ? [.ok("The data folder \(path) does not exist yet; serve creates it.")]
                : [.failure("The data folder \(path) does not exist, and \(parent) is not writable by this user: serve could not create it.")]
        }
        guard isFolder.boolValue else { return [.failure("The data path \(path) is a file, not a folder.")] }
        var findings: [DoctorFinding] = []
        for folder in [path, DataFolder(path).blobs, DataFolder(path).collages] where FileManager.default.fileExists(atPath: folder) {
            if access(folder, R_OK | W_OK | X_OK) != 0 {
                findings.append(.failure("\(folder) is not writable by this user (uid \(geteuid())): uploads would fail; fix its owner or permissions."))
            }
        }
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & 0o077 != 0 {
            findings.append(.warning("The data folder \(path) can be read by other users (mode \(String(status.st_mode & 0o777, radix: 8))); serve makes it 0700 at start."))
        }
        if let type = Self.fileSystemType(of: path), ["tmpfs", "ramfs"].contains(type) {
            findings.append(.failure("The data folder \(path) is on a file system in memory (\(type)): every photo and the database would be lost at the next restart."))
        }
        if findings.allSatisfy({ $0.severity == .ok }) {
            findings.append(.ok("The data folder \(path) is writable by this user only."))
        }
        return findings
    }

    func checkDiskSpace() -> [DoctorFinding] {
        let path = configuration.dataDirectory
        guard let available = StorageFull.availableBytes(at: Self.existingAncestor(of: path)) else {
            return [.warning("The free space of the data folder's disk cannot be read.")]
        }
        let perPhoto = Self.bytesPerPhoto(in: DataFolder(path).blobs) ?? Self.defaultBytesPerPhoto
        let needed = Int64(expectedPhotos) * perPhoto + Self.reserveBytes
        let said = "The data folder's disk has \(Self.size(available)) free; \(expectedPhotos) photos of about \(Self.size(perPhoto)) each need \(Self.size(needed))"
        if available < needed { return [.failure(said + ": uploads would be refused (507) before the day ends. Make room, or set --expected-photos.")] }
        if available < needed * 2 { return [.warning(said + ", less than twice that is free.")] }
        return [.ok(said + ".")]
    }

    /// The mean size of a stored photo's files, when at least 5 photos are stored.
    static func bytesPerPhoto(in blobs: String) -> Int64? {
        var total: Int64 = 0
        var photos = Set<Substring>()
        for relative in FileCopy.files(under: blobs, skipping: ["tmp"]) {
            let name = relative.split(separator: "/").last ?? ""
            photos.insert(name.prefix(64))
            total += FileCopy.size(of: blobs + "/" + relative) ?? 0
        }
        return photos.count >= 5 ? total / Int64(photos.count) : nil
    }

    /// Fontconfig's names for the languages venues are written in, where they differ.
    static let fontLanguages = ["zh": "zh-cn", "zh-hans": "zh-cn", "zh-hant": "zh-tw", "nb": "nb", "no": "nb", "pt-br": "pt"]

    /// Collage captions and posters draw the venues' texts and visitors' names with the fonts
    /// installed: each language needs a font of its script.
    func checkFonts(venues: [Venue]) -> [DoctorFinding] {
        var languages: [String: [String]] = [:]
        for venue in venues {
            for language in venue.languages { languages[language.lowercased(), default: []].append(venue.id) }
        }
        var findings: [DoctorFinding] = []
        for (language, venueIds) in languages.sorted(by: { $0.key < $1.key }) {
            let asked = Self.fontLanguages[language] ?? language
            guard let families = Self.fontFamilies(":lang=\(asked)") else {
                return [.warning("fc-list (fontconfig) cannot be run, so the fonts were not checked.")]
            }
            if families.isEmpty {
                let package = ["ja", "zh-cn", "zh-tw", "ko"].contains(asked) ? "fonts-noto-cjk" : "fonts-noto-core"
                findings.append(.failure("No font draws the language '\(language)' of \(venueIds.sorted().joined(separator: ", ")): its collage captions and posters would show empty boxes; install \(package)."))
            }
        }
        if let emoji = Self.fontFamilies(":charset=1f600"), emoji.isEmpty {
            findings.append(.warning("No font draws emoji: names with emoji show boxes on collages; install fonts-noto-color-emoji."))
        }
        if findings.isEmpty, !languages.isEmpty {
            findings.append(.ok("Fonts draw every language of the venues (\(languages.keys.sorted().joined(separator: ", ")))."))
        }
        return findings
    }

    /// The font families fontconfig lists for `pattern`, or nil when `fc-list` cannot run.
    static func fontFamilies(_ pattern: String) -> [String]? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/fc-list")
        process.arguments = [pattern, "family"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// Join codes expire, groups are kept for days and the numbers count by the venue's own
    /// day: a wrong clock or an unknown time zone shows at once to visitors and staff.
    func checkClock(venues: [Venue]) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        let year = Calendar(identifier: .gregorian).component(.year, from: now)
        if year < 2025 {
            findings.append(.failure("The clock says \(ISO8601DateFormatter().string(from: now)): joining times and retention would be wrong; set the clock."))
        } else {
            if Self.isClockUnsynchronised() {
                findings.append(.warning("The clock is not kept in step by NTP (the kernel calls it unsynchronised); it may drift over the day."))
            }
        }
        if findings.isEmpty { findings.append(.ok("The clock says \(ISO8601DateFormatter().string(from: now)).")) }
        let unknown = venues.filter { TimeZone(identifier: $0.timeZone) == nil }
        for venue in unknown {
            findings.append(.failure("The time zone '\(venue.timeZone)' of \(venue.id) is unknown to this machine (install tzdata): its numbers would count by the wrong day."))
        }
        if unknown.isEmpty, !venues.isEmpty {
            findings.append(.ok("The venues' time zones (\(Set(venues.map(\.timeZone)).sorted().joined(separator: ", "))) are known here."))
        }
        return findings
    }

    /// The type of the file system that holds `path` (`ext4`, `tmpfs`, …), from the kernel's
    /// table of mounts: the mount point that is the longest prefix of its real path.
    static func fileSystemType(of path: String) -> String? {
        guard let real = realpath(path, nil) else { return nil }
        defer { free(real) }
        let resolved = String(cString: real)
        guard let table = try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8) else { return nil }
        var best: (point: String, type: String)?
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 3 else { continue }
            // Spaces and the like in mount points are written as octal escapes.
            let point = String(fields[1]).replacingOccurrences(of: "\\040", with: " ")
            let covers = point == "/" || resolved == point || resolved.hasPrefix(point + "/")
            if covers, point.count >= (best?.point.count ?? 0) { best = (point, String(fields[2])) }
        }
        return best?.type
    }

    /// Whether the kernel calls the clock unsynchronised: `adjtimex` (only read, `modes` 0)
    /// answers TIME_ERROR (5). Looked up at run time: Swift's Glibc module leaves out
    /// `sys/timex.h`.
    static func isClockUnsynchronised() -> Bool {
        typealias AdjustTime = @convention(c) (UnsafeMutableRawPointer) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "adjtimex") else { return false }
        // `struct timex` is 208 bytes on 64-bit Linux; zeroed, it asks for nothing to change.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 512, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 0, count: 512)
        return unsafeBitCast(symbol, to: AdjustTime.self)(buffer) == 5
    }

    static func existingAncestor(of path: String) -> String {
        var current = path.isEmpty ? "." : path
        while !FileManager.default.fileExists(atPath: current) {
            let parent = (current as NSString).deletingLastPathComponent
            if parent.isEmpty { return "." }
            if parent == current { return current }
            current = parent
        }
        return current
    }

    /// GiB with one decimal, MiB under one GiB, KiB under one MiB, bytes under one KiB: a size
    /// is never "0 MiB".
    static func size(_ bytes: Int64) -> String {
        let kibibyte = 1024.0, mebibyte = kibibyte * 1024, gibibyte = mebibyte * 1024
        let value = Double(bytes)
        if value >= gibibyte { return String(format: "%.1f GiB", value / gibibyte) }
        if value >= mebibyte { return String(format: "%.0f MiB", value / mebibyte) }
        if value >= kibibyte { return String(format: "%.0f KiB", value / kibibyte) }
        return "\(bytes) bytes"
    }
}
