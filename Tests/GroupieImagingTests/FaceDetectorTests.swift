import Foundation
import GroupieCore
import GroupieTestSupport
import Testing

@testable import GroupieImaging

/// OpenCV's frontal-face cascade (opencv-data) on the fixture photos: the face of the
/// astronaut's portrait, and none in pictures of things.
@Suite("Face detection")
struct FaceDetectorTests {
    static let photos = TestServerAssets.repository + "/Tests/Fixtures/Photos"

    @Test("The astronaut's face is found where it is: in the upper middle of her portrait")
    func astronaut() throws {
        let path = Self.photos + "/astronaut.jpg"
        let size = try TestImages.header(path)
        let faces = try FaceDetector().faces(inPhotoAt: path, width: size.width, height: size.height)
        let face = try #require(faces.first)
        #expect(faces.count == 1, "\(faces)")
        let centreX = Double(face.x + face.width / 2) / Double(size.width), centreY = Double(face.y + face.height / 2) / Double(size.height)
        #expect((0.3...0.65).contains(centreX), "\(face)")
        #expect((0.1...0.4).contains(centreY), "\(face)")
        // A face, not the whole portrait nor a freckle.
        #expect((size.width / 10...size.width / 2).contains(face.width), "\(face)")
    }

    @Test("No face in a rocket, a coffee cup or a brick wall", arguments: ["rocket.jpg", "coffee.jpg", "brick.jpg"])
    func noFace(name: String) throws {
        let path = Self.photos + "/" + name
        let size = try TestImages.header(path)
        #expect(try FaceDetector().faces(inPhotoAt: path, width: size.width, height: size.height).isEmpty)
    }

    @Test("The face is found in a collage tile where the tile shows it")
    func tile() throws {
        let path = Self.photos + "/astronaut.jpg"
        // A wide tile: the portrait is cut to its upper half, around its subject, where the face is.
        let found = try FaceDetector().faces(inTileOf: path, size: PixelSize(width: 600, height: 300), crop: 1, focus: (0.45, 0.25))
        #expect(found.tile == PixelSize(width: 600, height: 300))
        let face = try #require(found.faces.first)
        #expect(PixelRect(x: 0, y: 0, width: 600, height: 300).contains(face))
        #expect((180...420).contains(face.x + face.width / 2), "\(face)")
        // Fitted whole into the same place, the tile is as tall as its place and narrower.
        let whole = try FaceDetector().faces(inTileOf: path, size: PixelSize(width: 600, height: 300), crop: 2, focus: (-1, -1))
        #expect(whole.tile == PixelSize(width: 300, height: 300))
        #expect(whole.faces.count == 1)
    }

    @Test("A cascade that is not there is said so")
    func missingCascade() throws {
        let path = Self.photos + "/astronaut.jpg"
        #expect(throws: FaceDetector.Failure.self) {
            try FaceDetector(cascadePath: "/nonexistent/cascade.xml").faces(inPhotoAt: path, width: 512, height: 512)
        }
    }
}
