extension OTLPSignalData {
    /// The request cut in two at its middle item, each half keeping the resource and scope of its items
    /// (a group cut in two appears in both halves), in order; `nil` when it holds fewer than two items. What
    /// a sender does when a collector answers that a request is too large.
    package func halves() -> (first: OTLPSignalData, second: OTLPSignalData)? {
        let total = itemCount
        guard total >= 2 else { return nil }
        var remaining = total / 2
        var first = OTLPSignalData()
        var second = OTLPSignalData()
        for group in resourceGroups {
            var head = OTLPResourceGroup<Item>(resource: group.resource, scopeGroups: [], schemaURL: group.schemaURL)
            var tail = head
            for scopeGroup in group.scopeGroups {
                // A group without items stays with its neighbours: in the first half while it fills.
                let isFilling = remaining > 0
                let taken = min(remaining, scopeGroup.items.count)
                remaining -= taken
                if taken > 0 || (scopeGroup.items.isEmpty && isFilling) {
                    head.scopeGroups.append(
                        OTLPScopeGroup(scope: scopeGroup.scope, items: Array(scopeGroup.items[..<taken]), schemaURL: scopeGroup.schemaURL))
                }
                if taken < scopeGroup.items.count || (scopeGroup.items.isEmpty && !isFilling) {
                    tail.scopeGroups.append(
                        OTLPScopeGroup(scope: scopeGroup.scope, items: Array(scopeGroup.items[taken...]), schemaURL: scopeGroup.schemaURL))
                }
            }
            if !head.scopeGroups.isEmpty { first.resourceGroups.append(head) }
            if !tail.scopeGroups.isEmpty { second.resourceGroups.append(tail) }
        }
        return (first, second)
    }
}
