// OTLPMetricKit.docc/Mapping.md: run by the tests on the MetricKit samples of Tests/Fixtures.
import OTLPMetricKit
import OTLPWire

func convertBothKinds(metricJSON: [UInt8], diagnosticJSON: [UInt8]) throws -> (spans: [OTLPSpan], logRecords: [OTLPLogRecord]) {
    var options = MetricKitConverter.Options.default
    options.assumedUTCOffsetSeconds = -7 * 3_600  // timestamps without an offset were written at UTC−7
    let converter = MetricKitConverter(options: options)

    let metricSpans = try converter.convertMetricPayload(json: metricJSON)  // MXMetricPayload, its signposts
    let diagnostic = try converter.convertDiagnosticPayload(json: diagnosticJSON)  // a span, log records, skipped values
    for skipped in diagnostic.skippedValues { print(skipped) }  // $.path: why
    return (metricSpans + [diagnostic.span], diagnostic.logRecords)
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
