import Foundation

extension OTLPExporterConfiguration.Resolved {
    /// ``url`` as diagnostics print it: without its user-info (`https://user:secret@host` reads
    /// `https://<redacted>@host`) and without a query (where some services put a token).
    package var redactedURL: String { Self.redacted(url: url.absoluteString) }

    /// `text`, a URL, with its user-info and query replaced by `<redacted>`; text that does not parse as a URL
    /// with a scheme and host is replaced whole (it may be anything a user typed, a secret included).
    package static func redacted(url text: String) -> String {
        guard var components = URLComponents(string: text), components.scheme != nil, components.host != nil else {
            return "<redacted URL>"
        }
        let hadUserInfo = components.user != nil || components.password != nil
        components.user = nil
        components.password = nil
        let hadQuery = components.query != nil
        components.query = nil
        components.fragment = nil
        guard var result = components.string else { return "<redacted URL>" }
        if hadUserInfo, let range = result.range(of: "://") {
            result.insert(contentsOf: "<redacted>@", at: range.upperBound)
        }
        if hadQuery { result += "?<redacted>" }
        return result
    }
}

extension OTLPExporterConfiguration {
    /// ``endpoint`` as diagnostics print it (see ``Resolved/redacted(url:)``).
    package var redactedEndpoint: String { Resolved.redacted(url: endpoint) }
}
