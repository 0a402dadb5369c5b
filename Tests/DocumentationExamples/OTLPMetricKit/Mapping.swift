// OTLPMetricKit.docc/Mapping.md: run by the tests on the MetricKit samples of Tests/Fixtures.
import OTLPMetricKit
import OTLPWire

func convertBothKinds(metricJSON: [UInt8], diagnosticJSON: [UInt8]) throws -> (spans: [OTLPSpan], logRecords: [OTLPLogRecord]) {
    var options = MetricKitConverter.Options.default
    options.assumedUTCOffsetSeconds = -7 * 3_600  // timestamps without an offset were written at UTC−7
    let converter = MetricKitConverter(options: options)

    var spans: [OTLPSpan] = []
    var logRecords: [OTLPLogRecord] = []
    for json in [metricJSON, diagnosticJSON] {
        switch try converter.convertPayload(json: json) {
        case .metric(let metric):  // MXMetricPayload, its signposts
            spans += metric.spans
        case .diagnostic(let diagnostic):  // a span, log records, skipped values
            for skipped in diagnostic.skippedValues { print(skipped) }  // $.path: why
            spans.append(diagnostic.span)
            logRecords += diagnostic.logRecords
        }
    }
    return (spans, logRecords)
}

func writeConverted(spans: [OTLPSpan], logRecords: [OTLPLogRecord]) throws {
    let resource = OTLPResource(attributes: [OTLPAttribute("service.name", "metrickit")])
    let scope = MetricKitConverter.Options.default.scope
    let traces = OTLPRecordWriter(sink: try OTLPFileSink(path: "metrickit.u32be.bin"))
    try traces.write(OTLPTracesData(resource: resource, scope: scope, items: spans))
    try traces.close()
    let logs = OTLPRecordWriter(sink: try OTLPFileSink(path: "diagnostics.u32be.bin"))
    try logs.write(OTLPLogsData(resource: resource, scope: scope, items: logRecords))
    try logs.close()
}
