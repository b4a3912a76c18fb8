import Foundation
import GroupieImaging
import GroupieTestSupport
import Testing

@Suite("Photo processing")
struct PhotoProcessorTests {
    let processor = try! PhotoProcessor()

    @Test("Formats are recognised from their bytes", arguments: ["jpg", "png", "webp", "heic"])
    func formats(ext: String) throws {
        let path = try TestImages.solid(width: 320, height: 200, rgb: (200, 30, 30), ext: ext)
        let header = try processor.inspect(fileAt: path)
        #expect(header.format.fileExtension == ext)
        #expect(header.width == 320 && header.height == 200)
        #expect(header.orientation == 1)
    }

    @Test("Orientation 6 and 8 swap the oriented size; the display derivative is portrait", arguments: [UInt16(6), 8])
    func orientation(orientation: UInt16) throws {
        let path = try TestImages.jpegWithEXIF(width: 2000, height: 1500, orientation: orientation)
        let header = try processor.inspect(fileAt: path)
        #expect(header.orientation == Int(orientation))
        #expect(header.orientedWidth == 1500 && header.orientedHeight == 2000)
        let display = TestImages.folder + "/display-\(orientation).jpg"
        try processor.makeDerivative(.display, of: path, to: display)
        let derived = try processor.inspect(fileAt: display)
        #expect(derived.width == 1200 && derived.height == 1600, "portrait, 1600 on the long edge")
        #expect(derived.orientation == 1, "metadata removed, rotation applied")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: display)))
        #expect(!bytes.contains(subsequence: Array("Exif".utf8)))
        let thumb = TestImages.folder + "/thumb-\(orientation).jpg"
        try processor.makeDerivative(.thumb, of: path, to: thumb)
        let small = try processor.inspect(fileAt: thumb)
        #expect(small.width == 300 && small.height == 400)
    }

    @Test("Derivatives are in sRGB: a photo in Display P3 is converted, a plain RGB one is kept as it is")
    func derivativesInSRGB() throws {
        let plain = try TestImages.solid(width: 64, height: 64, rgb: (200, 30, 30), ext: "jpg")
        // The same colour in Display P3, tagged so (as phones save it): other numbers.
        let p3 = TestImages.folder + "/p3-\(UUID().uuidString).jpg"
        try TestImages.vips(["icc_export", plain, p3, "--output-profile", "p3"])
        #expect(!TestImages.close(try TestImages.pixel(p3, x: 32, y: 32), (200, 30, 30)), "P3 numbers differ from sRGB ones")
        for (name, path) in [("plain", plain), ("p3", p3)] {
            for derivative in PhotoProcessor.Derivative.allCases {
                let output = TestImages.folder + "/\(name)-\(derivative.longEdge)-\(UUID().uuidString).jpg"
                try processor.makeDerivative(derivative, of: path, to: output)
                let colour = try TestImages.pixel(output, x: 10, y: 10)
                #expect(TestImages.close(colour, (200, 30, 30)), "\(name) \(derivative): \(colour)")
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: output)))
                #expect(!bytes.contains(subsequence: Array("ICC_PROFILE".utf8)), "saved without a profile")
            }
        }
    }

    @Test("Small photos are not enlarged")
    func noUpscaling() throws {
        let path = try TestImages.solid(width: 500, height: 300, rgb: (0, 0, 0), ext: "png")
        let display = TestImages.folder + "/small-display.jpg"
        try processor.makeDerivative(.display, of: path, to: display)
        let header = try processor.inspect(fileAt: display)
        #expect(header.width == 500 && header.height == 300)
    }

    @Test("The original is served without its GPS position but with its orientation")
    func servedWithoutLocation() throws {
        let path = try TestImages.jpegWithEXIF(width: 800, height: 600, orientation: 6)
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect([UInt8](original).contains(subsequence: TestImages.gpsLatitude))
        let header = try processor.inspect(fileAt: path)
        let served = try ServedOriginal.make(from: original, format: .jpeg, orientation: header.orientation, width: header.width, height: header.height)
        #expect(![UInt8](served).contains(subsequence: TestImages.gpsLatitude))
        let servedPath = try TestImages.write([UInt8](served), ext: "jpg")
        let again = try processor.inspect(fileAt: servedPath)
        #expect(again.orientation == 6 && again.width == 800 && again.height == 600)
    }

    @Test("Progressive JPEGs are told from baseline ones, whose decoding holds less")
    func progressive() throws {
        let baseline = try TestImages.solid(width: 300, height: 200, rgb: (10, 20, 30), ext: "jpg")
        let interlaced = TestImages.folder + "/progressive-\(UUID().uuidString).jpg"
        try TestImages.vips(["copy", baseline, interlaced + "[interlace]"])
        #expect(!ServedOriginal.isProgressiveJPEG(try Data(contentsOf: URL(fileURLWithPath: baseline))))
        #expect(ServedOriginal.isProgressiveJPEG(try Data(contentsOf: URL(fileURLWithPath: interlaced))))
    }

    @Test("A 16-bit RGBA photo is refused by its decoded size, which its pixels alone allow")
    func decodedBytes() throws {
        let path = TestImages.folder + "/deep-\(UUID().uuidString).png"
        try TestImages.vips(["black", path, "200", "200", "--bands", "4"])
        try TestImages.vips(["cast", path, path + ".v", "ushort"])
        try TestImages.vips(["copy", path + ".v", path + ".png[bitdepth=16]"])
        let limited = try PhotoProcessor(limits: .init(maxPixels: 100_000, maxDecodedBytes: 200 * 200 * 4))
        #expect(throws: PhotoProcessor.Failure.tooManyDecodedBytes(200 * 200 * 4 * 2)) {
            try limited.inspect(fileAt: path + ".png")
        }
        #expect(try limited.inspect(fileAt: path).decodedBytes == 200 * 200 * 4)
    }

    @Test("A PNG declaring 100,000 × 100,000 pixels is refused from its header")
    func hugePNG() throws {
        let path = try TestImages.pngDeclaring(width: 100_000, height: 100_000)
        #expect(throws: PhotoProcessor.Failure.tooLarge(width: 100_000, height: 100_000)) {
            try processor.inspect(fileAt: path)
        }
    }

    @Test("Under 64 pixels is refused")
    func tooSmall() throws {
        let path = try TestImages.solid(width: 63, height: 400, rgb: (1, 2, 3), ext: "png")
        #expect(throws: PhotoProcessor.Failure.tooSmall(width: 63, height: 400)) {
            try processor.inspect(fileAt: path)
        }
    }

    @Test("GIF, SVG, PDF, HTML and empty files are not photos", arguments: [
        Array("GIF89a".utf8) + [UInt8](repeating: 0, count: 20),
        Array("<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>".utf8),
        Array("%PDF-1.4\n%âãÏÓ\n".utf8),
        Array("<!doctype html><html></html>".utf8),
        [],
    ])
    func notPhotos(bytes: [UInt8]) throws {
        let path = try TestImages.write(bytes, ext: "jpg")
        #expect(throws: PhotoProcessor.Failure.unsupportedFormat) {
            try processor.inspect(fileAt: path)
        }
    }

    @Test("A truncated or corrupt JPEG fails cleanly")
    func truncated() throws {
        let path = try TestImages.solid(width: 800, height: 600, rgb: (10, 200, 10), ext: "jpg")
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        for broken in [Array(bytes.prefix(bytes.count / 2)), Array(bytes.prefix(40)), Array(bytes.prefix(300)) + [UInt8](repeating: 0x55, count: 3000)] {
            let brokenPath = try TestImages.write(broken, ext: "jpg")
            #expect(throws: PhotoProcessor.Failure.self) {
                _ = try processor.inspect(fileAt: brokenPath)
                try processor.makeDerivative(.display, of: brokenPath, to: brokenPath + ".out.jpg")
            }
        }
    }
}

@Suite("Malloc arenas")
struct MallocArenasTests {
    @Test("the server limits glibc's arenas unless MALLOC_ARENA_MAX chooses")
    func limit() {
        #expect(MallocArenas.limit(environment: ["MALLOC_ARENA_MAX": "8"]) == nil)
        #expect(MallocArenas.limit(environment: [:]) == MallocArenas.serverDefault)
    }

    @Test("the server fixes the mmap threshold unless MALLOC_MMAP_THRESHOLD_ chooses")
    func mmapThreshold() {
        #expect(Heap.fixMmapThreshold(environment: ["MALLOC_MMAP_THRESHOLD_": "131072"]) == nil)
        #expect(Heap.fixMmapThreshold(environment: [:]) == Heap.serverMmapThreshold)
    }

    @Test("the heap's statistics see a block of 512 MiB come and go, and a trim leaves them readable")
    func statistics() throws {
        let before = try #require(Heap.statistics())
        let size = 512 << 20
        let block = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        let during = try #require(Heap.statistics())
        block.deallocate()
        Heap.trim()
        let after = try #require(Heap.statistics())
        // Other tests allocate at the same time; the block dwarfs what they hold.
        #expect(during.inUse >= before.inUse + UInt64(size) / 2)
        #expect(after.inUse + UInt64(size) / 2 <= during.inUse)
    }
}

@Suite("CRC-32")
struct CRC32Tests {
    @Test("the check value of ISO 3309, from bytes and from Data, and of nothing")
    func checkValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(Data("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }
}
