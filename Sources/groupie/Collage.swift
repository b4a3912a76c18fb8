import ArgumentParser
import Foundation
import GroupieContent
import GroupieCore
import GroupieImaging
import GroupieServer

/// `groupie collage`: draws a mission's collage from image files, as the server would; for
/// trying a venue's look, the reference pictures and the benchmark.
struct Collage: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Draw a mission's collage from image files, as the server draws it for a group.",
        discussion: "Prints the layout and, with --repeat, the time each drawing took."
    )

    @Option(help: "The venue's mission file.")
    var venue: String

    @Option(help: "The mission's id.")
    var mission: String

    @Option(help: "Folder of logos, stickers and frames (GROUPIE_ASSETS). Default ./assets.")
    var assets: String?

    @Option(help: "Language of the caption. Default: the venue's first.")
    var language: String?

    @Option(help: "Photographers' names, comma-separated, in the order of the photos.")
    var names: String = ""

    @Option(help: "The group's name, shown in the caption.")
    var group: String?

    @Option(help: "Draw in this style instead of the mission's: auto, grid, strip, polaroid or sticker.")
    var style: String?

    @Option(help: "Pixels on the long edge, 256 to 4096.")
    var size: Int = 2048

    @Option(help: "The day the caption shows, as YYYY-MM-DD. Default: today.")
    var day: String?

    @Option(help: "Draw it this many times and print the times (for benchmarks).")
    var `repeat`: Int = 1

    @Option(help: "Where to write the picture; .jpg or .png.")
    var out: String

    @Argument(help: "One image per task of the mission, in the order of its tasks.")
    var photos: [String]

    func run() throws {
        let assetsDirectory = assets ?? ProcessInfo.processInfo.environment["GROUPIE_ASSETS"] ?? "./assets"
        let report = MissionFileReader(assetsDirectory: assetsDirectory).read(fileAt: venue)
        guard let venue = report.venue else {
            report.problems.forEach { print($0) }
            throw ExitCode(1)
        }
        guard var mission = venue.missions.first(where: { $0.id == self.mission }) else {
            throw ValidationError("The venue has no mission '\(self.mission)'; it has \(venue.missions.map(\.id).joined(separator: ", ")).")
        }
        if let style {
            guard let chosen = VisualStyle(rawValue: style) else { throw ValidationError("--style must be auto, grid, strip, polaroid or sticker.") }
            mission.style = chosen
        }
        guard photos.count == mission.tasks.count else {
            throw ValidationError("The mission has \(mission.tasks.count) task(s): give as many photos, not \(photos.count).")
        }
        guard (256...4096).contains(size) else { throw ValidationError("--size must be from 256 to 4096.") }
        let captionDay = try day.map(Self.noon(of:)) ?? Date()
        let format: CollageFileFormat = out.lowercased().hasSuffix(".png") ? .png : .jpeg
        let language = language.flatMap { venue.languages.contains($0) ? $0 : nil } ?? venue.defaultLanguage
        let names = self.names.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        // As the server does when a photo is uploaded, not each time a collage is drawn.
        let focusStarted = DispatchTime.now().uptimeNanoseconds
        let focus = try CollageTool.focus(of: photos)
        let focusTime = Double(DispatchTime.now().uptimeNanoseconds - focusStarted) / 1e6
        var times: [Double] = [], cpuTimes: [Double] = []
        var result: CollageTool.Result?
        for _ in 0..<max(1, self.repeat) {
            let started = DispatchTime.now().uptimeNanoseconds, cpuStarted = Self.cpuMilliseconds()
            result = try CollageTool.render(
                venue: venue, mission: mission, photos: photos, focus: focus, names: names, groupName: group, day: captionDay, language: language,
                longEdge: size, format: format, assetsDirectory: assetsDirectory, output: out
            )
            times.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6)
            cpuTimes.append(Self.cpuMilliseconds() - cpuStarted)
        }
        guard let result else { return }
        for asset in result.report.missingAssets { print("warning: \(asset) is missing; drawn without it") }
        if result.report.unreadableAssets > 0 { print("warning: \(result.report.unreadableAssets) asset(s) could not be read; drawn without them") }
        let sorted = times.sorted()
        print("collage \(out): \(result.layout.canvas.width)x\(result.layout.canvas.height), style \(result.layout.style.rawValue), layout \(result.layout.arrangement)")
        print(String(format: "subjects found in %.1f ms (once per photo, at upload on the server)", focusTime))
        let cpu = cpuTimes.sorted()
        print(String(format: "times: runs %d, p50 %.1f ms, min %.1f ms, max %.1f ms, cpu p50 %.1f ms", sorted.count, sorted[sorted.count / 2], sorted[0], sorted[sorted.count - 1], cpu[cpu.count / 2]))
    }

    /// Noon UTC of a `YYYY-MM-DD` day: the same day in every venue's time zone but the farthest.
    static func noon(of text: String) throws -> Date {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        var components = DateComponents(timeZone: .gmt, hour: 12)
        if parts.count == 3 { (components.year, components.month, components.day) = (parts[0], parts[1], parts[2]) }
        guard parts.count == 3, components.isValidDate(in: Calendar(identifier: .gregorian)), let date = Calendar(identifier: .gregorian).date(from: components) else {
            throw ValidationError("--day must be a day written YYYY-MM-DD, not '\(text)'.")
        }
        return date
    }

    /// CPU time of the whole process (all threads), which other work on the machine does not inflate.
    static func cpuMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
    }
}
