import Foundation
import GroupieContent
import GroupieCore

/// `groupie doctor`: a machine checked before the day, one sentence for each thing looked at.
/// A `failure` would fail visitors (uploads refused, QR codes that lead nowhere, a database that
/// loses answered photos); a `warning` is worth fixing but fails no one today.
public struct DoctorFinding: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        case ok, warning, failure
    }

    public var severity: Severity
    public var sentence: String

    public static func ok(_ sentence: String) -> DoctorFinding { DoctorFinding(severity: .ok, sentence: sentence) }
    public static func warning(_ sentence: String) -> DoctorFinding { DoctorFinding(severity: .warning, sentence: sentence) }
    public static func failure(_ sentence: String) -> DoctorFinding { DoctorFinding(severity: .failure, sentence: sentence) }

    public var description: String {
        switch severity {
        case .ok: "ok: \(sentence)"
        case .warning: "warning: \(sentence)"
        case .failure: "FAIL: \(sentence)"
        }
    }
}

public struct Doctor: Sendable {
    public var configuration: ServerConfiguration
    /// Photos the day is expected to bring, for the disk space they need.
    public var expectedPhotos: Int
    /// The certificate `serve` is given for HTTPS, if any (PEM, the server's first).
    public var certificate: String?
    public var now: Date

    public init(configuration: ServerConfiguration, expectedPhotos: Int, certificate: String?, now: Date = Date()) {
        self.configuration = configuration
        self.expectedPhotos = expectedPhotos
        self.certificate = certificate
        self.now = now
    }

    /// Every check but the database's and the public URL's, which need the network.
    public func checkMachine() -> [DoctorFinding] {
        var findings = checkConfiguration()
        findings += checkDataFolder()
        findings += checkDiskSpace()
        let venues = loadVenues()
        findings += venues.findings
        findings += checkFonts(venues: venues.valid)
        findings += checkClock(venues: venues.valid)
        if let certificate { findings += checkCertificate(at: certificate) }
        return findings
    }

    func checkConfiguration() -> [DoctorFinding] {
        guard let url = configuration.publicBaseURL, let components = URLComponents(string: url), let host = components.host else {
            return [.warning("No public URL is set: QR codes carry \(configuration.resolvedPublicBaseURL), which only phones on this network reach; set --public-url.")]
        }
        if components.scheme == "http", !["localhost", "127.0.0.1", "::1"].contains(host) {
            return [.warning("The public URL \(url) is plain HTTP: phones' browsers allow the camera, sharing and offline play only over HTTPS.")]
        }
        return [.ok("The settings are read, and phones are sent to \(url).")]
    }

    /// The venues of the missions folder, and a sentence for each file that fails.
    func loadVenues() -> (valid: [Venue], findings: [DoctorFinding]) {
        let folder = MissionFolder(directory: configuration.missionsDirectory, assetsDirectory: configuration.assetsDirectory)
        let listing: (files: [String], skipped: [MissionProblem])
        do {
            let found = try folder.listing()
            listing = (found.0, found.1)
        } catch {
            return ([], [.failure("The missions folder \(configuration.missionsDirectory) cannot be read (\(error)); no venue would be served.")])
        }
        let reader = MissionFileReader(assetsDirectory: configuration.assetsDirectory)
        var venues: [Venue] = [], findings: [DoctorFinding] = []
        for problem in listing.skipped { findings.append(.warning("\(problem)")) }
        for file in listing.files {
            let report = reader.read(fileAt: file)
            if let venue = report.venue {
                venues.append(venue)
            } else {
                let first = report.errors.first.map { " The first: \($0)" } ?? ""
                findings.append(.failure("The mission file \(file) has \(report.errors.count) error(s) and is not served; `groupie missions validate` lists them.\(first)"))
            }
        }
        if venues.isEmpty {
            findings.append(.failure("The missions folder \(configuration.missionsDirectory) has no valid venue: visitors would find nothing to play."))
        } else {
            findings.append(.ok("\(venues.count) venue(s) are valid: \(venues.map(\.id).sorted().joined(separator: ", "))."))
        }
        return (venues, findings)
    }
}
