#!/usr/bin/env python3
"""Metrics fixtures made with the reference opentelemetry-proto package, for OTLPWire's metrics tests.

usage: reference-metrics.py DIR
Writes into DIR:
  metrics.u32be.bin        ExportMetricsServiceRequests covering every data kind (gauge, sum, histogram,
                           exponential histogram, summary), both NumberDataPoint values and none, exemplars with
                           filtered attributes and trace context, flags, present and absent sum/min/max, metadata
  metrics.jsonl            the same requests as OTLP JSON (the reference's proto3 JSON with IDs as hex), one a line
  merged.u32be.bin         requests whose messages repeat singular fields (protobuf merges them: Metric data set
                           twice or switched, buckets twice, a data point split in two)
  merged-canonical.u32be.bin  what the reference reads from each of those, serialized again
"""
import json
import sys

from google.protobuf.json_format import MessageToDict
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, KeyValue, KeyValueList
from opentelemetry.proto.metrics.v1 import metrics_pb2 as m

ID_KEYS = {"traceId", "spanId"}


def hex_ids(node):
    import base64
    if isinstance(node, dict):
        return {k: (base64.b64decode(v).hex() if k in ID_KEYS and isinstance(v, str) else hex_ids(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [hex_ids(v) for v in node]
    return node


def kv(key, **value):
    return KeyValue(key=key, value=AnyValue(**value))


def exemplar(n, **value):
    return m.Exemplar(
        time_unix_nano=1_700_000_000_000_000_000 + n, trace_id=bytes(range(n, n + 16)), span_id=bytes(range(n, n + 8)),
        filtered_attributes=[kv("user.id", string_value=f"u{n}"), kv("retry", int_value=n)], **value)


def first_request():
    r = ExportMetricsServiceRequest()
    rm = r.resource_metrics.add(schema_url="https://opentelemetry.io/schemas/1.26.0")
    rm.resource.attributes.extend([kv("service.name", string_value="checkout"), kv("host.cpus", int_value=8)])
    rm.resource.dropped_attributes_count = 2
    sm = rm.scope_metrics.add(schema_url="https://example.com/scope")
    sm.scope.name = "io.example.meter"
    sm.scope.version = "1.2.3"
    sm.scope.attributes.append(kv("scope.kind", bool_value=True))

    g = sm.metrics.add(name="queue.depth", description="items waiting", unit="{item}")
    g.metadata.append(kv("prometheus.type", string_value="gauge"))
    g.gauge.data_points.add(time_unix_nano=10, as_int=-7, exemplars=[exemplar(1, as_int=3)],
                            attributes=[kv("queue", string_value="orders")])
    g.gauge.data_points.add(time_unix_nano=11, as_double=2.5, flags=0)
    g.gauge.data_points.add(time_unix_nano=12, flags=1)  # no recorded value: neither as_double nor as_int
    g.gauge.data_points.add(time_unix_nano=13, as_int=0)  # a oneof member at its default

    s = sm.metrics.add(name="http.server.requests", unit="{request}")
    s.sum.aggregation_temporality = m.AGGREGATION_TEMPORALITY_CUMULATIVE
    s.sum.is_monotonic = True
    s.sum.data_points.add(start_time_unix_nano=1, time_unix_nano=18446744073709551615, as_double=3.25, flags=1,
                          attributes=[kv("http.route", string_value="/cart"),
                                      kv("tags", array_value=ArrayValue(values=[AnyValue(string_value="a"), AnyValue(double_value=0.5)]))],
                          exemplars=[exemplar(2, as_double=-0.0), exemplar(3)])
    d = sm.metrics.add(name="bytes.delta", unit="By")
    d.sum.aggregation_temporality = m.AGGREGATION_TEMPORALITY_DELTA
    d.sum.data_points.add(start_time_unix_nano=5, time_unix_nano=6, as_int=9223372036854775807)

    h = sm.metrics.add(name="http.server.duration", unit="ms")
    h.histogram.aggregation_temporality = m.AGGREGATION_TEMPORALITY_DELTA
    h.histogram.data_points.add(start_time_unix_nano=100, time_unix_nano=200, count=6, sum=12.5,
                                bucket_counts=[1, 2, 0, 3], explicit_bounds=[5.0, 10.0, 1e300],
                                min=0.001, max=9.75, exemplars=[exemplar(4, as_double=9.75)],
                                attributes=[kv("kv", kvlist_value=KeyValueList(values=[kv("inner", bytes_value=b"\x00\xff")]))])
    h.histogram.data_points.add(time_unix_nano=201, count=0)  # no sum, min or max
    h.histogram.data_points.add(time_unix_nano=202, count=1, sum=0.0, min=0.0, max=0.0, bucket_counts=[1])
    r.resource_metrics.add()  # an empty resource group, no resource
    return r


def second_request():
    r = ExportMetricsServiceRequest()
    rm = r.resource_metrics.add()
    rm.resource.attributes.append(kv("service.name", string_value="billing"))
    sm = rm.scope_metrics.add()  # no scope
    e = sm.metrics.add(name="payload.size", unit="By")
    e.exponential_histogram.aggregation_temporality = m.AGGREGATION_TEMPORALITY_CUMULATIVE
    p = e.exponential_histogram.data_points.add(start_time_unix_nano=1, time_unix_nano=2, count=9, sum=-4.5, scale=-3,
                                                 zero_count=2, zero_threshold=1e-9, min=-3.0, max=2048.0, flags=1,
                                                 exemplars=[exemplar(5, as_int=-1)])
    p.positive.offset = -3
    p.positive.bucket_counts.extend([1, 0, 2, 18446744073709551615])
    p.negative.offset = 2
    p.negative.bucket_counts.extend([4])
    q = e.exponential_histogram.data_points.add(time_unix_nano=3, scale=20)  # no buckets, no sum
    q.attributes.append(kv("empty", bool_value=False))
    z = e.exponential_histogram.data_points.add(time_unix_nano=4)
    z.positive.SetInParent()  # present but empty buckets

    u = sm.metrics.add(name="rpc.latency", description="legacy summary", unit="s")
    u.summary.data_points.add(start_time_unix_nano=7, time_unix_nano=8, count=100, sum=51.5,
                              quantile_values=[m.SummaryDataPoint.ValueAtQuantile(quantile=0.0, value=0.01),
                                               m.SummaryDataPoint.ValueAtQuantile(quantile=0.99, value=2.0),
                                               m.SummaryDataPoint.ValueAtQuantile(quantile=1.0, value=0.0)],
                              attributes=[kv("rpc.method", string_value="Pay")], flags=0)
    sm.metrics.add(name="no.data")  # a metric without its data field
    empty = sm.metrics.add(name="empty.gauge")
    empty.gauge.SetInParent()  # a gauge without points
    return r


def field(number, payload):
    """A length-delimited field."""
    out, value = bytearray(), len(payload)
    tag = number << 3 | 2
    while True:
        out.append(tag & 0x7F | (0x80 if tag > 0x7F else 0))
        tag >>= 7
        if not tag:
            break
    while True:
        out.append(value & 0x7F | (0x80 if value > 0x7F else 0))
        value >>= 7
        if not value:
            break
    return bytes(out) + payload


def request_of_metric_bytes(metric):
    return field(1, field(2, field(2, metric)))


def merged_requests():
    """Requests whose messages protobuf merges: raw concatenations of serialized messages."""
    gauge = m.Metric(name="a", gauge=m.Gauge(data_points=[m.NumberDataPoint(time_unix_nano=1, as_int=1)])).SerializeToString()
    gauge2 = m.Metric(gauge=m.Gauge(data_points=[m.NumberDataPoint(time_unix_nano=2, as_double=2.0)])).SerializeToString()
    summed = m.Metric(unit="s", sum=m.Sum(aggregation_temporality=2, data_points=[m.NumberDataPoint(as_int=5)])).SerializeToString()
    summed2 = m.Metric(sum=m.Sum(is_monotonic=True)).SerializeToString()
    point_a = m.ExponentialHistogramDataPoint(count=1, positive=m.ExponentialHistogramDataPoint.Buckets(offset=1, bucket_counts=[1]))
    point_b = m.ExponentialHistogramDataPoint(scale=2, positive=m.ExponentialHistogramDataPoint.Buckets(bucket_counts=[2, 3]),
                                              negative=m.ExponentialHistogramDataPoint.Buckets(offset=-1))
    point_c = m.ExponentialHistogramDataPoint(negative=m.ExponentialHistogramDataPoint.Buckets(bucket_counts=[7]), sum=1.5)
    points = point_a.SerializeToString() + point_b.SerializeToString() + point_c.SerializeToString()
    exp = m.Metric(name="e").SerializeToString() + field(10, field(1, points))
    number_a = m.NumberDataPoint(as_double=1.0, exemplars=[m.Exemplar(as_int=1)]).SerializeToString()
    number_b = m.NumberDataPoint(as_int=4, time_unix_nano=9).SerializeToString()
    split_point = m.Metric(name="p").SerializeToString() + field(5, field(1, number_a + number_b))
    hist_a = m.HistogramDataPoint(sum=1.0, bucket_counts=[1, 2], explicit_bounds=[1.0]).SerializeToString()
    hist_b = m.HistogramDataPoint(min=-1.0, bucket_counts=[3], explicit_bounds=[2.0]).SerializeToString()
    split_hist = m.Metric(name="h").SerializeToString() + field(9, field(1, hist_a + hist_b))
    return [
        request_of_metric_bytes(gauge + gauge2),  # the same member twice: merged
        request_of_metric_bytes(gauge + summed + gauge2),  # switched away and back: only the last gauge
        request_of_metric_bytes(summed + summed2),  # a sum merged: temporality kept, monotonic added
        request_of_metric_bytes(exp),  # buckets merged, two singular fields in one point
        request_of_metric_bytes(split_point),  # a data point's value oneof: the last wins
        request_of_metric_bytes(split_hist),  # packed repeated fields concatenate; optional sum and min both kept
    ]


def u32be(messages):
    return b"".join(len(b).to_bytes(4, "big") + b for b in messages)


def main():
    out = sys.argv[1]
    requests = [first_request(), second_request()]
    open(f"{out}/metrics.u32be.bin", "wb").write(u32be([r.SerializeToString() for r in requests]))
    with open(f"{out}/metrics.jsonl", "w") as f:
        for r in requests:
            f.write(json.dumps(hex_ids(MessageToDict(r, use_integers_for_enums=True))) + "\n")
    merged = merged_requests()
    open(f"{out}/merged.u32be.bin", "wb").write(u32be(merged))
    canonical = []
    for body in merged:
        r = ExportMetricsServiceRequest()
        r.ParseFromString(body)
        canonical.append(r.SerializeToString())
    open(f"{out}/merged-canonical.u32be.bin", "wb").write(u32be(canonical))


if __name__ == "__main__":
    main()
