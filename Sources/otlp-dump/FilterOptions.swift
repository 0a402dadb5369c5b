import ArgumentParser
import OTLPWire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which spans, log records and metrics to keep.
struct FilterOptions: ParsableArguments {
    @Option(
        name: .customLong("trace-id"),
        help: "Keep spans and log records of this trace, and metrics with an exemplar of it (32 hex digits).")
    var traceID: String?

    @Option(
        help:
            "Keep spans, log records and metrics whose name (span name, log event name or body, metric name) contains this text, or matches it as a glob when it has * ? or [."
    )
    var name: String?

    @Option(
        name: .customLong("severity-min"),
        help:
            "Keep log records at least this severe (trace, debug, info, warn, error, fatal, with 2-4 suffixes, or 1-24); spans and metrics, which have no severity, are left out."
    )
    var severityMin: String?

    @Option(help: "Stop after this many spans, log records or metrics in all.")
    var limit: Int?

    func validate() throws {
        if let traceID, OTLPTraceID(hex: traceID) == nil { throw ValidationError("--trace-id must be 32 hexadecimal digits") }
        if let severityMin, OTLPSeverity(name: severityMin) == nil { throw ValidationError("unknown severity '\(severityMin)'") }
        if let limit, limit < 0 { throw ValidationError("--limit must not be negative") }
    }

    var isActive: Bool { traceID != nil || name != nil || severityMin != nil || limit != nil }

    private func matches(_ text: String) -> Bool {
        guard let name else { return true }
        if name.contains(where: { "*?[".contains($0) }) { return fnmatch(name, text, 0) == 0 }
        return text.contains(name)
    }

    func keeps(_ span: OTLPSpan) -> Bool {
        if let traceID, span.traceID != OTLPTraceID(hex: traceID) { return false }
        if severityMin != nil { return false }
        return matches(span.name)
    }

    /// `--trace-id` keeps a metric with an exemplar of that trace; `--severity-min` keeps none (metrics have no
    /// severity); `--name` matches the metric's name.
    func keeps(_ metric: OTLPMetric) -> Bool {
        if severityMin != nil { return false }
        if let traceID, !metric.hasExemplar(of: OTLPTraceID(hex: traceID)) { return false }
        return matches(metric.name)
    }

    /// The filter that leaves out every item of `signal` whatever it holds, if any: `--severity-min` for spans
    /// and metrics.
    func optionLeavingOut(_ signal: OTLPSignal) -> String? {
        severityMin != nil && signal != .logs ? "--severity-min" : nil
    }

    func keeps(_ record: OTLPLogRecord) -> Bool {
        if let traceID, record.traceID != OTLPTraceID(hex: traceID) { return false }
        if let severityMin, let minimum = OTLPSeverity(name: severityMin), record.severity < minimum { return false }
        if name != nil {
            var body = ""
            if case .string(let text) = record.body { body = text }
            return matches(record.eventName) || matches(body)
        }
        return true
    }
}

/// Applies filters across records, counting towards `--limit`.
struct RecordFilter {
    let options: FilterOptions
    private(set) var kept = 0

    init(_ options: FilterOptions) {
        self.options = options
    }

    /// Items left out by an option that cannot keep any item of their signal (`--severity-min` for spans and
    /// metrics), per signal: so that a print or a count left empty by it says why.
    private(set) var leftOutWhole: [OTLPSignal: Int] = [:]

    var isExhausted: Bool { options.limit.map { kept >= $0 } ?? false }

    /// A line for stderr naming what an option left out whole, if it left out anything.
    var leftOutNote: String? {
        let counts = OTLPSignal.allCases.compactMap { signal in
            leftOutWhole[signal].map { "\($0) \(signal.itemNoun(count: $0))" }
        }
        guard !counts.isEmpty, let option = OTLPSignal.allCases.lazy.compactMap(options.optionLeavingOut).first else { return nil }
        return "\(option) keeps log records only: \(counts.joined(separator: " and ")) left out"
    }

    /// The payload with only the items kept; groups left empty by filtering are dropped.
    mutating func apply(_ payload: OTLPPayload) -> OTLPPayload {
        guard options.isActive else { return payload }
        let options = self.options
        if options.optionLeavingOut(payload.signal) != nil, payload.itemCount > 0 {
            leftOutWhole[payload.signal, default: 0] += payload.itemCount
        }
        switch payload {
        case .traces(let data): return .traces(keep(data) { options.keeps($0) })
        case .logs(let data): return .logs(keep(data) { options.keeps($0) })
        case .metrics(let data): return .metrics(keep(data) { options.keeps($0) })
        }
    }

    /// `data` with only the items `keeps` accepts, up to the limit, counted in `kept`.
    private mutating func keep<Item>(_ data: OTLPSignalData<Item>, _ keeps: (Item) -> Bool) -> OTLPSignalData<Item> {
        var data = data
        data.resourceGroups = data.resourceGroups.compactMap { group in
            var group = group
            group.scopeGroups = group.scopeGroups.compactMap { scope in
                var scope = scope
                scope.items = scope.items.filter { item in
                    guard !isExhausted, keeps(item) else { return false }
                    kept += 1
                    return true
                }
                return scope.items.isEmpty ? nil : scope
            }
            return group.scopeGroups.isEmpty ? nil : group
        }
        return data
    }
}
