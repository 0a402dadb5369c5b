extension OTLPSignalData where Item == OTLPMetric {
    /// The data points of every metric: what a metrics collector counts (`rejected_data_points`).
    package var dataPointCount: Int {
        resourceGroups.reduce(0) { sum, group in
            group.scopeGroups.reduce(sum) { sum, scope in scope.items.reduce(sum) { $0 + ($1.data?.dataPointCount ?? 0) } }
        }
    }
}
