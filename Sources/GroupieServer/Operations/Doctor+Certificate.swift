import Foundation
import X509

/// The certificate given to `serve` for HTTPS: phones refuse an expired one, or one for
/// another name, before they reach Groupie at all.
extension Doctor {
    /// Days before its end from which a certificate is worth renewing.
    static let renewalDays = 14.0

    func checkCertificate(at path: String) -> [DoctorFinding] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            return [.failure("The certificate \(path) cannot be read.")]
        }
        let certificate: Certificate
        do {
            certificate = try Self.firstCertificate(in: text)
        } catch {
            return [.failure("The certificate \(path) is not a PEM certificate (\(error)).")]
        }
        let ends = ISO8601DateFormatter().string(from: certificate.notValidAfter)
        var findings: [DoctorFinding] = []
        let days = certificate.notValidAfter.timeIntervalSince(now) / 86_400
        if certificate.notValidBefore > now {
            findings.append(.failure("The certificate \(path) is valid only from \(ISO8601DateFormatter().string(from: certificate.notValidBefore)): phones refuse it until then."))
        } else if days < 1 {
            findings.append(.failure("The certificate \(path) \(days <= 0 ? "expired" : "expires") at \(ends): phones refuse it; renew it."))
        } else if days < Self.renewalDays {
            findings.append(.warning("The certificate \(path) expires at \(ends), in \(Int(days)) days; renew it soon."))
        }
        let names = TLSIdentity.names(of: certificate)
        if let host = configuration.publicBaseURL.flatMap({ URLComponents(string: $0)?.host?.lowercased() }), !names.isEmpty,
            !names.contains(where: { TLSIdentity.name($0, covers: host) })
        {
            findings.append(.failure("The certificate \(path) is for \(names.joined(separator: ", ")), not for \(host) of the public URL: phones refuse it."))
        }
        if findings.isEmpty { findings.append(.ok("The certificate \(path) is valid until \(ends).")) }
        return findings
    }

    /// The first certificate of a PEM file (the server's own, before its chain).
    static func firstCertificate(in text: String) throws -> Certificate {
        let begin = "-----BEGIN CERTIFICATE-----", end = "-----END CERTIFICATE-----"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) else {
            throw OperationFailure("no BEGIN CERTIFICATE block")
        }
        return try Certificate(pemEncoded: String(text[start.lowerBound..<stop.upperBound]))
    }
}
