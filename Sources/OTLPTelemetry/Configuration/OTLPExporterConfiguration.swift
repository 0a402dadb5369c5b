package import Foundation
public import OTLPWire

/// Delivery to an OpenTelemetry collector over OTLP/HTTP: the `otlp` section of an
/// ``OTLPTelemetryConfiguration``. Every field has a default; a JSON file needs only what differs.
///
/// ```json
/// { "otlp": { "endpoint": "https://collector.example.com:4318", "headers": { "api-key": "…" },
///             "logs": { "compression": "none" }, "traces": { "enabled": false } } }
/// ```
///
/// ``endpoint`` is a base URL: spans go to `{endpoint}/v1/traces` and log records to `{endpoint}/v1/logs`. A
/// signal's own ``SignalOverride/endpoint`` is used exactly as given, as the specification says of the
/// signal-specific endpoints. ``resolved(for:)`` combines the base settings and a signal's overrides into
/// what one exporter uses.
public struct OTLPExporterConfiguration: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
    /// Settings of one signal that replace the base ones; `nil` fields use the base value.
    public struct SignalOverride: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
        /// Whether this signal is delivered. Default `true`.
        public var enabled: Bool
        /// The full URL this signal is posted to, used as given (no `/v1/…` appended). Default: none (the
        /// base endpoint with `/v1/traces` or `/v1/logs` appended).
        public var endpoint: String?
        /// Default: none (the base protocol).
        public var `protocol`: OTLPHTTPProtocol?
        /// Default: none (the base compression).
        public var compression: OTLPCompression?
        /// Headers merged over the base ones (a name in both takes this value). Default: none.
        public var headers: [String: String]?
        /// Default: none (the base timeout). Range as ``OTLPExporterConfiguration/timeoutSeconds``'s.
        public var timeoutSeconds: Double?
        /// TLS files for this signal (`OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE`…); each file set replaces the
        /// base one. Default: none (the base files).
        public var tls: TLSFiles?

        /// Enabled, nothing overridden: what an omitted argument or JSON key means.
        public static let `default` = SignalOverride(
            enabled: true, endpoint: nil, protocol: nil, compression: nil, headers: nil, timeoutSeconds: nil, tls: nil)

        /// Overrides with ``default``'s values unless given.
        public init(
            enabled: Bool = SignalOverride.default.enabled, endpoint: String? = SignalOverride.default.endpoint,
            protocol: OTLPHTTPProtocol? = SignalOverride.default.protocol,
            compression: OTLPCompression? = SignalOverride.default.compression,
            headers: [String: String]? = SignalOverride.default.headers, timeoutSeconds: Double? = SignalOverride.default.timeoutSeconds,
            tls: TLSFiles? = SignalOverride.default.tls
        ) {
            self.enabled = enabled
            self.endpoint = endpoint
            self.protocol = `protocol`
            self.compression = compression
            self.headers = headers
            self.timeoutSeconds = timeoutSeconds
            self.tls = tls
        }
    }

    /// The PEM files of an `https` connection, as the specification's `OTEL_EXPORTER_OTLP_CERTIFICATE`,
    /// `_CLIENT_KEY` and `_CLIENT_CERTIFICATE` name them (JSON: `"tls": { "certificate": "/etc/otel/ca.pem" }`).
    /// A file that cannot be loaded fails every request of the signal with a message naming it, counted as
    /// any failed delivery.
    public struct TLSFiles: Sendable, Equatable, Encodable, OTLPConfigurationDecodable {
        /// The certificate authorities trusted to verify the collector's certificate, instead of the system's
        /// trust roots (a private CA). Default: none (the system's trust roots).
        public var certificate: String?
        /// The client's private key, for a collector that asks for client certificates (mutual TLS); needs
        /// ``clientCertificate``. Default: none.
        public var clientKey: String?
        /// The client's certificate chain, for mutual TLS; needs ``clientKey``. Default: none.
        public var clientCertificate: String?

        /// No file: the system's trust roots, no client certificate.
        public static let `default` = TLSFiles(certificate: nil, clientKey: nil, clientCertificate: nil)

        /// TLS files with ``default``'s values unless given.
        public init(
            certificate: String? = TLSFiles.default.certificate, clientKey: String? = TLSFiles.default.clientKey,
            clientCertificate: String? = TLSFiles.default.clientCertificate
        ) {
            self.certificate = certificate
            self.clientKey = clientKey
            self.clientCertificate = clientCertificate
        }

        /// `self` with each file `overrides` sets taken from it.
        package func merging(_ overrides: TLSFiles?) -> TLSFiles {
            TLSFiles(
                certificate: overrides?.certificate ?? certificate, clientKey: overrides?.clientKey ?? clientKey,
                clientCertificate: overrides?.clientCertificate ?? clientCertificate)
        }

        /// Whether no file is set.
        package var isEmpty: Bool { self == .default }
    }

    /// Everything one signal's exporter needs, base settings and overrides combined: what
    /// ``resolved(for:)`` returns, for the OTLPHTTP library's `OTLPHTTPExporter` (or an
    /// ``OTLPExporterFactory``). Its settings are read inside the package only; set them in the configuration.
    public struct Resolved: Sendable, Equatable {
        /// Where requests are posted (`http://localhost:4318/v1/traces`).
        package var url: URL
        /// How bodies are encoded.
        package var `protocol`: OTLPHTTPProtocol
        /// How bodies are compressed.
        package var compression: OTLPCompression
        /// Extra request headers: the base ones with the signal's merged over them.
        package var headers: [String: String]
        /// Longest wait for one request, in seconds, within 0.001...86,400.
        package var timeoutSeconds: Double
        /// The spool batches go through (store and forward), its ``OTLPSpoolConfiguration/directory`` already
        /// this signal's subdirectory (`DIR/traces`, `DIR/logs`) and ``OTLPSpoolConfiguration/maxBytes`` this
        /// signal's half; `nil`: batches are sent directly.
        package var spool: OTLPSpoolConfiguration?
        /// The compression level (zlib's scale) of gzip-compressed bodies (1...9).
        package var gzipLevel: Int = OTLPGzip.defaultLevel
        /// The TLS files: the signal's over the base ones.
        package var tls: TLSFiles
        /// The signal whose own settings (`otlp.<signal>.tls`, `OTEL_EXPORTER_OTLP_<SIGNAL>_…`) set the files in
        /// ``tlsFromSignal``; `nil` when all came from the base settings.
        package var tlsSignal: OTLPSignal?
        /// The TLS files set by the signal's own settings: an error about one of them names those settings.
        package var tlsFromSignal: TLSFiles = .default

        /// The settings of one signal's exporter.
        package init(
            url: URL, protocol: OTLPHTTPProtocol, compression: OTLPCompression, headers: [String: String], timeoutSeconds: Double,
            spool: OTLPSpoolConfiguration? = nil, tls: TLSFiles = .default, tlsSignal: OTLPSignal? = nil,
            tlsFromSignal: TLSFiles = .default, gzipLevel: Int = OTLPGzip.defaultLevel
        ) {
            self.gzipLevel = gzipLevel
            self.url = url
            self.protocol = `protocol`
            self.compression = compression
            self.headers = headers
            self.timeoutSeconds = timeoutSeconds
            self.spool = spool
            self.tls = tls
            self.tlsSignal = tlsSignal
            self.tlsFromSignal = tlsFromSignal
        }
    }

    /// The collector's base URL, `http` or `https`; `/v1/traces` and `/v1/logs` are appended to its path (a
    /// trailing `/` is not doubled). Default `http://localhost:4318`.
    public var endpoint: String
    /// Default ``OTLPHTTPProtocol/httpProtobuf``.
    public var `protocol`: OTLPHTTPProtocol
    /// Default ``OTLPCompression/gzip``.
    public var compression: OTLPCompression
    /// The compression level (zlib's scale) of gzip-compressed bodies (both signals): 1 is fastest, 9 smallest. Default 1 (chosen by measurement: the Configuration article), range 1...9.
    public var gzipLevel: Int
    /// Extra request headers for both signals (an API key, for instance). Names must be HTTP tokens and values
    /// must not hold control characters (a tab excepted). Default: none.
    public var headers: [String: String]
    /// Longest wait for one request, in seconds. Default 10, range 0.001...86,400 (1 ms to one day).
    public var timeoutSeconds: Double
    /// Overrides for spans; default: none, delivered.
    public var traces: SignalOverride
    /// Overrides for log records; default: none, delivered.
    public var logs: SignalOverride
    /// Store and forward: batches are written to this spool first and uploaded from there. Default: none
    /// (batches are sent directly; what cannot be delivered within the timeout is dropped).
    public var spool: OTLPSpoolConfiguration?
    /// The PEM files of `https` connections for both signals: a private CA, a client certificate and key.
    /// Default ``TLSFiles/default`` (the system's trust roots, no client certificate).
    public var tls: TLSFiles

    /// The specification's defaults (`http://localhost:4318`, `http/protobuf`, 10 s) with gzip on, both
    /// signals delivered: what an omitted argument or JSON key means.
    public static let `default` = OTLPExporterConfiguration(
        endpoint: "http://localhost:4318", protocol: .httpProtobuf, compression: .gzip, headers: [:], timeoutSeconds: 10,
        traces: .default, logs: .default, spool: nil, tls: .default, gzipLevel: OTLPGzip.defaultLevel)

    /// A configuration with ``default``'s values unless given.
    public init(
        endpoint: String = OTLPExporterConfiguration.default.endpoint,
        protocol: OTLPHTTPProtocol = OTLPExporterConfiguration.default.protocol,
        compression: OTLPCompression = OTLPExporterConfiguration.default.compression,
        headers: [String: String] = OTLPExporterConfiguration.default.headers,
        timeoutSeconds: Double = OTLPExporterConfiguration.default.timeoutSeconds,
        traces: SignalOverride = OTLPExporterConfiguration.default.traces, logs: SignalOverride = OTLPExporterConfiguration.default.logs,
        spool: OTLPSpoolConfiguration? = OTLPExporterConfiguration.default.spool,
        tls: TLSFiles = OTLPExporterConfiguration.default.tls,
        gzipLevel: Int = OTLPExporterConfiguration.default.gzipLevel
    ) {
        self.gzipLevel = gzipLevel
        self.endpoint = endpoint
        self.protocol = `protocol`
        self.compression = compression
        self.headers = headers
        self.timeoutSeconds = timeoutSeconds
        self.traces = traces
        self.logs = logs
        self.spool = spool
        self.tls = tls
    }

    /// Accepted timeouts, in seconds: 1 ms to one day.
    package static var timeoutSecondsRange: ClosedRange<Double> { 0.001...86_400 }

    /// The overrides of `signal`. Metrics (sent by `otlp-dump`, not recorded by the SDK) have none: the base
    /// settings, with `/v1/metrics` appended to the endpoint.
    package subscript(signal: OTLPSignal) -> SignalOverride {
        get {
            switch signal {
            case .traces: traces
            case .logs: logs
            case .metrics: .default
            }
        }
        set {
            switch signal {
            case .traces: traces = newValue
            case .logs: logs = newValue
            case .metrics: preconditionFailure("the telemetry SDK configures traces and logs, not metrics")
            }
        }
    }

    /// What `signal`'s exporter uses: the URL (the signal's endpoint as given, else the base endpoint with
    /// `/v1/traces`, `/v1/logs` or `/v1/metrics` appended; metrics have no overrides), protocol, compression, headers (the signal's merged over the
    /// base ones; a header no request can carry is left out) and timeout (clamped into
    /// ``timeoutSeconds``' range; NaN becomes the default).
    ///
    /// - Returns: `nil` when the signal is not delivered (``SignalOverride/enabled`` is `false`), or when the
    ///   URL is not an absolute `http` or `https` URL with a host (``OTLPTelemetryConfiguration/validate()``
    ///   reports it as `otlp.endpoint` or `otlp.<signal>.endpoint`).
    public func resolved(for signal: OTLPSignal) -> Resolved? {
        let override = self[signal]
        guard override.enabled else { return nil }
        let url: URL?
        if let endpoint = override.endpoint {
            url = Self.httpURL(endpoint)
        } else {
            url = Self.httpURL(endpoint).flatMap { Self.appending(signal, to: $0) }
        }
        guard let url else { return nil }
        return Resolved(
            url: url, protocol: override.protocol ?? `protocol`, compression: override.compression ?? compression,
            // A header no HTTP request can carry (listed by `problems`) is left out rather than failing every request.
            headers: Self.merging(override.headers ?? [:], over: headers).filter {
                Self.headerProblem(name: $0.key, value: $0.value) == nil
            },
            timeoutSeconds: OTLPSettingClamp.clamp(
                override.timeoutSeconds ?? timeoutSeconds, to: Self.timeoutSecondsRange, default: Self.default.timeoutSeconds),
            spool: spool.flatMap { spool in
                // An empty directory is listed by `problems` (`otlp.spool.directory`): never the root's subdirectories.
                guard !spool.directory.isEmpty else { return nil }
                var signalSpool = spool.clamped
                signalSpool.directory = (spool.directory.hasSuffix("/") ? spool.directory : spool.directory + "/") + "\(signal)"
                signalSpool.maxBytes = signalSpool.maxBytes / 2
                return signalSpool
            }, tls: tls.merging(override.tls), tlsSignal: override.tls.map { _ in signal }, tlsFromSignal: override.tls ?? .default,
            gzipLevel: OTLPSettingClamp.clamp(gzipLevel, to: OTLPGzip.levelRange))
    }

    /// This configuration with every timeout brought into its range; a NaN becomes the default.
    package var clamped: OTLPExporterConfiguration {
        var copy = self
        copy.timeoutSeconds = OTLPSettingClamp.clamp(timeoutSeconds, to: Self.timeoutSecondsRange, default: Self.default.timeoutSeconds)
        copy.spool = spool?.clamped
        copy.gzipLevel = OTLPSettingClamp.clamp(gzipLevel, to: OTLPGzip.levelRange)
        for signal in OTLPSignal.sdkSignals {
            copy[signal].timeoutSeconds = self[signal].timeoutSeconds.map {
                OTLPSettingClamp.clamp($0, to: Self.timeoutSecondsRange, default: Self.default.timeoutSeconds)
            }
        }
        return copy
    }

    /// Every problem, as errors naming `prefix.key` (`otlp.endpoint`, `otlp.traces.timeoutSeconds`).
    func violations(prefix: String) -> [OTLPConfigurationError] {
        var problems: [OTLPConfigurationError] = []
        func check(endpoint: String?, headers: [String: String]?, timeoutSeconds: Double?, at path: String) {
            if let endpoint, let message = Self.endpointProblem(endpoint) {
                problems.append(OTLPConfigurationError(keyPath: "\(path)endpoint", message: message))
            }
            for (name, value) in (headers ?? [:]).sorted(by: { $0.key < $1.key }) {
                if let message = Self.headerProblem(name: name, value: value) {
                    problems.append(OTLPConfigurationError(keyPath: "\(path)headers.\(Self.printableHeaderName(name))", message: message))
                }
            }
            if let timeoutSeconds,
                let problem = OTLPConfigurationError.check(
                    timeoutSeconds, in: Self.timeoutSecondsRange, "\(path)timeoutSeconds", unit: " seconds")
            {
                problems.append(problem)
            }
        }
        check(endpoint: endpoint, headers: headers, timeoutSeconds: timeoutSeconds, at: prefix)
        if let problem = OTLPConfigurationError.check(gzipLevel, in: OTLPGzip.levelRange, "\(prefix)gzipLevel") { problems.append(problem) }
        problems += spool?.violations(prefix: "\(prefix)spool.") ?? []
        for signal in [nil] + OTLPSignal.sdkSignals {
            // A signal without TLS files of its own has the base's, and their problems are listed once, there.
            if let signal, self[signal].tls == nil { continue }
            let files = signal.map { tls.merging(self[$0].tls) } ?? tls
            let path = "\(prefix)\(signal.map { "\($0)." } ?? "")tls."
            for (key, file) in [
                ("certificate", files.certificate), ("clientKey", files.clientKey), ("clientCertificate", files.clientCertificate),
            ]
            where file?.isEmpty == true {
                problems.append(OTLPConfigurationError(keyPath: path + key, message: "must be a file's path, not empty"))
            }
            if (files.clientKey == nil) != (files.clientCertificate == nil) {
                problems.append(
                    OTLPConfigurationError(
                        keyPath: path + (files.clientKey == nil ? "clientKey" : "clientCertificate"),
                        message: "a client certificate needs its key and a key its certificate: set both or neither"))
            }
        }
        for signal in OTLPSignal.sdkSignals {
            let override = self[signal]
            check(
                endpoint: override.endpoint, headers: override.headers, timeoutSeconds: override.timeoutSeconds, at: "\(prefix)\(signal).")
        }
        return problems
    }

    // MARK: URLs and headers

    /// `string` as an absolute `http` or `https` URL with a host, or `nil`.
    static func httpURL(_ string: String) -> URL? {
        guard endpointProblem(string) == nil else { return nil }
        return URL(string: string)
    }

    /// Why `string` is not an absolute `http` or `https` URL with a host, or `nil` when it is one.
    static func endpointProblem(_ string: String) -> String? {
        let expected = "must be an absolute http or https URL with a host"
        guard let components = URLComponents(string: string), URL(string: string) != nil,
            let scheme = components.scheme?.lowercased()
        else { return "\(expected) (\"http://collector:4318\")" }
        guard scheme == "http" || scheme == "https" else {
            // `user:password@host` parses as the scheme `user`: never echoed when credentials may follow.
            return string.contains("@")
                ? "\(expected) (no user or password in it: put credentials in headers)" : "\(expected), not \(scheme)"
        }
        guard let host = components.host, !host.isEmpty else { return "\(expected) (\"http://collector:4318\")" }
        if let range = components.rangeOfPort {
            let port = string[range]
            guard !port.isEmpty, port.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let number = Int(port),
                (1...65_535).contains(number)
            else {
                return "\(expected): its port must be 1...65535"
            }
        }
        guard components.user == nil, components.password == nil else {
            return "\(expected) and no user or password in it (put credentials in headers)"
        }
        return nil
    }

    /// A header name as messages print it: one that holds white space or a colon is a credential typed as a
    /// name (`Authorization: Bearer …` as a name) and is not shown.
    static func printableHeaderName(_ name: String) -> String {
        name.contains(where: { $0.isWhitespace || $0 == ":" }) ? "<not shown: a name with spaces or a colon>" : name
    }

    /// What to say when the base endpoint ends in a signal's path (`http://collector:4318/v1/traces`): it is
    /// taken off (the specification's base URL gets `/v1/traces` and `/v1/logs` appended, which would double
    /// it), and the variable for one signal's full URL is named, unless `fullURLAdvice` says what to do
    /// instead (a tool without per-signal endpoints). `nil` for a base URL.
    package static func signalPathWarning(endpoint: String, fullURLAdvice: String? = nil) -> String? {
        guard let components = URLComponents(string: endpoint) else { return nil }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        // Every signal's path is taken off (otlp-dump send posts metrics through this configuration too).
        guard let signal = OTLPSignal.allCases.first(where: { path.hasSuffix("/v1/\($0)") }) else { return nil }
        let variable = "OTEL_EXPORTER_OTLP_\(signal.rawValue.uppercased())_ENDPOINT"
        let advice =
            fullURLAdvice
            ?? (OTLPSignal.sdkSignals.contains(signal)
                ? "for one signal's full URL, set \(variable) or otlp.\(signal).endpoint" : "this SDK sends traces and logs")
        return
            "the endpoint \(Resolved.redacted(url: endpoint)) is a base URL, to which each signal's path (/v1/traces, /v1/logs or /v1/metrics) is appended: its /v1/\(signal) is taken off (\(advice))"
    }

    /// `base` with `overrides` merged over it; header names compare without regard to case, so `API-Key`
    /// replaces `api-key`.
    static func merging(_ overrides: [String: String], over base: [String: String]) -> [String: String] {
        var merged = base
        for (name, value) in overrides {
            for existing in merged.keys where existing.lowercased() == name.lowercased() { merged[existing] = nil }
            merged[name] = value
        }
        return merged
    }

    /// `base` with `/v1/traces` or `/v1/logs` appended to its path, one `/` between them. A base that ends in a
    /// signal's path already (`…/v1/traces`) has it taken off first, so the same URL works in every SDK's
    /// habit (see ``signalPathWarning(endpoint:)``).
    static func appending(_ signal: OTLPSignal, to base: URL) -> URL? {
        guard var components = URLComponents(url: base, resolvingAgainstBaseURL: false) else { return nil }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        if let suffix = OTLPSignal.allCases.map({ "/v1/\($0)" }).first(where: { path.hasSuffix($0) }) { path.removeLast(suffix.count) }
        components.percentEncodedPath = path + "/v1/\(signal)"
        return components.url
    }

    /// Why `name: value` cannot be sent as a request header, or `nil` when it can: the name must be an HTTP
    /// token (RFC 9110) and the value must hold no control character but a tab (no header can be smuggled in
    /// with a line break).
    static func headerProblem(name: String, value: String) -> String? {
        if name.isEmpty { return "a header name must not be empty" }
        if !name.unicodeScalars.allSatisfy(isTokenCharacter) {
            return "a header name must be an HTTP token (letters, digits and !#$%&'*+-.^_`|~)"
        }
        if value.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\t") || $0.value == 0x7F }) {
            return "a header value must not hold control characters (line breaks included)"
        }
        return nil
    }

    private static func isTokenCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9": true
        case "!", "#", "$", "%", "&", "'", "*", "+", "-", ".", "^", "_", "`", "|", "~": true
        default: false
        }
    }
}

// Decoding with every key optional: a JSON file names only what differs from the defaults.
extension OTLPExporterConfiguration {
    enum CodingKeys: String, CodingKey, CaseIterable {
        case endpoint, `protocol`, compression, gzipLevel, headers, timeoutSeconds, traces, logs, spool, tls
    }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        let defaults = Self.default
        endpoint = try container.decodeIfPresent(String.self, forKey: .endpoint) ?? defaults.endpoint
        `protocol` = try container.decodeIfPresent(OTLPHTTPProtocol.self, forKey: .protocol) ?? defaults.protocol
        compression = try container.decodeIfPresent(OTLPCompression.self, forKey: .compression) ?? defaults.compression
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers) ?? defaults.headers
        timeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .timeoutSeconds) ?? defaults.timeoutSeconds
        traces = try container.decodeIfPresent(SignalOverride.self, forKey: .traces) ?? defaults.traces
        logs = try container.decodeIfPresent(SignalOverride.self, forKey: .logs) ?? defaults.logs
        spool = try container.decodeIfPresent(OTLPSpoolConfiguration.self, forKey: .spool) ?? defaults.spool
        tls = try container.decodeIfPresent(TLSFiles.self, forKey: .tls) ?? defaults.tls
        gzipLevel = try container.decodeIntegerIfPresent(forKey: .gzipLevel) ?? defaults.gzipLevel
    }
}

extension OTLPExporterConfiguration.SignalOverride {
    enum CodingKeys: String, CodingKey, CaseIterable { case enabled, endpoint, `protocol`, compression, headers, timeoutSeconds, tls }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        enabled = try container.decodeIfPresent(Bool.self, forKey: .enabled) ?? Self.default.enabled
        endpoint = try container.decodeIfPresent(String.self, forKey: .endpoint)
        `protocol` = try container.decodeIfPresent(OTLPHTTPProtocol.self, forKey: .protocol)
        compression = try container.decodeIfPresent(OTLPCompression.self, forKey: .compression)
        headers = try container.decodeIfPresent([String: String].self, forKey: .headers)
        timeoutSeconds = try container.decodeIfPresent(Double.self, forKey: .timeoutSeconds)
        tls = try container.decodeIfPresent(OTLPExporterConfiguration.TLSFiles.self, forKey: .tls)
    }
}

extension OTLPExporterConfiguration.TLSFiles {
    enum CodingKeys: String, CodingKey, CaseIterable { case certificate, clientKey, clientCertificate }

    package init(configurationFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try decoder.reportUnknownKeys(CodingKeys.self)
        certificate = try container.decodeIfPresent(String.self, forKey: .certificate)
        clientKey = try container.decodeIfPresent(String.self, forKey: .clientKey)
        clientCertificate = try container.decodeIfPresent(String.self, forKey: .clientCertificate)
    }
}
