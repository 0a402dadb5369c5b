// OTLPWire.docc/Architecture.md.
import OTLPWire

func countItems<Item: OTLPSignalItem>(in request: OTLPSignalData<Item>) -> Int {
    var count = 0
    for resourceGroup in request.resourceGroups {
        for scopeGroup in resourceGroup.scopeGroups { count += scopeGroup.items.count }
    }
    return count
}

func encodeEitherSignal<Item: OTLPSignalItem>(_ request: OTLPSignalData<Item>) -> [UInt8] {
    OTLPEncoder().encode(request)  // one generic entry point: spans or log records
}
