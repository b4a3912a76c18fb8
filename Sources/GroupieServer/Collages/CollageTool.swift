import Foundation
import GroupieCore
import GroupieImaging

/// A collage made outside the server, from image files: `groupie collage`, the reference
/// pictures and the benchmark use it, with the same caption and assets as the server.
public enum CollageTool {
    public struct Result: Sendable {
        public var layout: CollageLayout
        public var report: CollageRenderer.Report
    }

    /// The caption: mission title in `language`, group name, venue and day in the venue's time
    /// zone, and the photographers.
    public static func caption(venue: Venue, mission: Mission, groupName: String?, names: [String], day: Date, language: String) -> CollageContent.Caption {
        let venueName = venue.name.resolved(language: language, fallback: venue.defaultLanguage)
        return CollageContent.Caption(
            title: mission.title.resolved(language: language, fallback: venue.defaultLanguage),
            subtitle: [groupName, venueName, Self.day(day, venue: venue, language: language)].compactMap { $0 }.filter { !$0.isEmpty }.joined(separator: " · "),
            names: names, language: language
        )
    }

    /// The day of `date` in the venue's time zone, written out in `language` ("26 November 2026").
    static func day(_ date: Date, venue: Venue, language: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: language)
        formatter.timeZone = TimeZone(identifier: venue.timeZone) ?? TimeZone(identifier: "UTC")
        formatter.dateStyle = .long
        formatter.timeStyle = .none
        return formatter.string(from: date)
    }

    /// The venue's look for a mission: logo, and for stickers the sticker and frames.
    static func content(
        venue: Venue, mission: Mission, photoPaths: [String], focus: [Focus?], caption: CollageContent.Caption, assetsDirectory: String
    ) -> CollageContent {
        func asset(_ path: String?) -> String? { path.map { assetsDirectory + "/" + $0 } }
        return CollageContent(
            photoPaths: photoPaths, caption: caption, themeColor: venue.theme.color, logoPath: asset(venue.theme.logo),
            stickerPath: mission.style == .sticker ? asset(mission.sticker) : nil,
            framePath: asset("frames/frame-gold.svg"), plainFramePath: asset("frames/frame-plain.svg"), focus: focus,
            framing: mission.tasks.filter { $0.kind == .photo }.map(\.framing), stickerPlace: mission.stickerPlace, stickerCorner: mission.stickerCorner
        )
    }

    /// Where the subject of each photo is, as the server finds it at upload.
    public static func focus(of photos: [String]) throws -> [Focus?] {
        let processor = try PhotoProcessor()
        return try photos.map { try processor.focus(of: $0) }
    }

    /// Draws `mission` of `venue` from the image files at `photos` (one per task, in order),
    /// cropped around `focus` (from `focus(of:)`; empty to look at the photos now).
    public static func render(
        venue: Venue, mission: Mission, photos: [String], focus: [Focus?] = [], names: [String], groupName: String?, day: Date, language: String,
        longEdge: Int, format: CollageFileFormat, assetsDirectory: String, output: String
    ) throws -> Result {
        let processor = try PhotoProcessor()
        let sizes = try photos.map { path -> PixelSize in
            let header = try processor.inspect(fileAt: path)
            return PixelSize(width: header.orientedWidth, height: header.orientedHeight)
        }
        let layout = CollageLayoutEngine.layout(photos: sizes, longEdge: longEdge, style: mission.style)
        let caption = caption(venue: venue, mission: mission, groupName: groupName, names: names, day: day, language: language)
        let report = try CollageRenderer().render(
            layout: layout, content: content(venue: venue, mission: mission, photoPaths: photos, focus: focus, caption: caption, assetsDirectory: assetsDirectory),
            format: format, to: output
        )
        return Result(layout: layout, report: report)
    }
}
