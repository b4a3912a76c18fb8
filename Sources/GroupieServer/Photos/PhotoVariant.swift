import GroupieCore
import Foundation
import GroupieImaging

/// The files a photo's blob has, side by side in the blob store, and the names its URLs use.
enum PhotoVariant: Sendable, Equatable {
    /// The bytes as received; never served.
    case received(PhotoFormat)
    /// The original as served: rebuilt from the allow-list of `ServedOriginal`, or a JPEG
    /// transcode for HEIF.
    case served(PhotoFormat)
    case display
    case thumb

    /// The variant a URL names (`thumb`, `display`, `original`), for a photo of `format`.
    init?(urlName: String, format: PhotoFormat) {
        switch urlName {
        case "thumb": self = .thumb
        case "display": self = .display
        case "original": self = .served(format)
        default: return nil
        }
    }

    /// What follows the blob's name in the file's name.
    var suffix: String {
        switch self {
        case .received(let format): "." + format.fileExtension
        case .served(let format): format == .heif ? "-full.jpg" : "-served." + format.fileExtension
        case .display: "-display.jpg"
        case .thumb: "-thumb.jpg"
        }
    }

    /// How the variant is sent.
    var mediaType: String {
        switch self {
        case .received(let format): format.mediaType
        case .served(let format): format == .heif ? "image/jpeg" : format.mediaType
        case .display, .thumb: "image/jpeg"
        }
    }

    /// The file extension of the served original of `photo`, in album downloads.
    static func servedExtension(_ photo: Photo) -> String {
        guard let format = PhotoFormat(rawValue: photo.format), format != .heif else { return "jpg" }
        return format.fileExtension
    }
}

extension PhotoFormat {
    /// The format of a stored photo; a value no version of Groupie writes is a damaged row.
    init(stored: String) throws {
        guard let format = PhotoFormat(rawValue: stored) else { throw CocoaError(.fileReadCorruptFile) }
        self = format
    }
}
