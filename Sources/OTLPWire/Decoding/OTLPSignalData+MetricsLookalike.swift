extension OTLPSignalData where Item == OTLPSpan {
    /// Whether these spans could be a metrics request read as traces: a metric's name, description and unit
    /// land where a span's IDs and trace state go, its data where the name, attributes or events go, and it
    /// has nothing a span's times (fixed64 fields 7 and 8) could come from. Spans an SDK or a collector writes
    /// always have times, so spans without any are checked as metrics before they are believed.
    package var couldBeMetricsReadAsTraces: Bool {
        itemCount > 0
            && resourceGroups.allSatisfy {
                $0.scopeGroups.allSatisfy { $0.items.allSatisfy { $0.startTimeUnixNano == 0 && $0.endTimeUnixNano == 0 } }
            }
    }
}
