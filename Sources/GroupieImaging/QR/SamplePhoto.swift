import CPoster
import Foundation

/// A stand-in photo for the previews of a mission's reward, drawn with cairo and Pango: a shade
/// of the venue's colour with the task's prompt in a frame, so that staff see where each task's
/// photo lands and how it is cropped.
public enum SamplePhoto {
    /// Draws a `width` x `height` PNG to `path`.
    public static func render(width: Int, height: Int, colour: String, label: String, language: String, to path: String) throws {
        let rgb = Poster.components(of: colour)
        var error = [CChar](repeating: 0, count: 256)
        let status = groupie_sample_photo_render(
            Int32(clamping: width), Int32(clamping: height), rgb.0, rgb.1, rgb.2, label, language, path, &error, error.count
        )
        guard status == 0 else {
            throw Poster.Failure(shimError: error)
        }
    }
}
