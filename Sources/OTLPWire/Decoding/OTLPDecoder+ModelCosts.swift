internal import COTLPShims

extension OTLPDecoder {
    /// What the Swift model takes per decoded message, for the pre-scan's estimate of decoded memory
    /// (``OTLPDecodingOptions/maxDecodedBytes`` covers protobuf-c's structs and the model built from them).
    /// Strides of the model types, plus 32 bytes of heap header for each array a message brings.
    static let modelCosts: COTLPShims_ModelCosts = {
        let arrayHeader = 32
        return COTLPShims_ModelCosts(
            span: MemoryLayout<OTLPSpan>.stride,
            span_event: MemoryLayout<OTLPSpanEvent>.stride,
            span_link: MemoryLayout<OTLPSpanLink>.stride,
            log_record: MemoryLayout<OTLPLogRecord>.stride,
            key_value: MemoryLayout<OTLPAttribute>.stride,
            any_value: MemoryLayout<OTLPAttributeValue>.stride + arrayHeader,
            resource_group: max(
                MemoryLayout<OTLPResourceGroup<OTLPSpan>>.stride, MemoryLayout<OTLPResourceGroup<OTLPLogRecord>>.stride,
                MemoryLayout<OTLPResourceGroup<OTLPMetric>>.stride) + 2
                * arrayHeader,
            scope_group: max(
                MemoryLayout<OTLPScopeGroup<OTLPSpan>>.stride, MemoryLayout<OTLPScopeGroup<OTLPLogRecord>>.stride,
                MemoryLayout<OTLPScopeGroup<OTLPMetric>>.stride) + 2
                * arrayHeader,
            entity_ref: MemoryLayout<OTLPEntityRef>.stride + 2 * arrayHeader,
            metric: MemoryLayout<OTLPMetric>.stride + arrayHeader,
            number_point: MemoryLayout<OTLPNumberDataPoint>.stride,
            histogram_point: MemoryLayout<OTLPHistogramDataPoint>.stride,
            exponential_histogram_point: MemoryLayout<OTLPExponentialHistogramDataPoint>.stride,
            summary_point: MemoryLayout<OTLPSummaryDataPoint>.stride,
            exemplar: MemoryLayout<OTLPExemplar>.stride,
            other: arrayHeader,
            heap_string_overhead: arrayHeader,
            inline_string_bytes: 15)
    }()
}
