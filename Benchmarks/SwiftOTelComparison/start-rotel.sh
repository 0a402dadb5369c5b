# Sourced by run-delivery.sh and run-pipeline.sh: starts rotel (installed by `make deps`) on two free
# loopback ports with `--exporter blackhole`, stops it on exit, and sets:
#   rotel_http_port, rotel_pid, rotel_work (a temporary directory removed on exit), rotel_version
rotel="$(python3 -c "import os,rotel;print(os.path.dirname(rotel.__file__))")/rotel-agent"
rotel_work=$(mktemp -d)
read -r rotel_http_port rotel_grpc_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*[s.getsockname()[1] for s in socks])')
"$rotel" start --otlp-http-endpoint "127.0.0.1:$rotel_http_port" --otlp-grpc-endpoint "127.0.0.1:$rotel_grpc_port" \
  --exporter blackhole --pid-file "$rotel_work/rotel.pid" >"$rotel_work/rotel.log" 2>&1 &
rotel_pid=$!
stop_rotel() {
  kill "$rotel_pid" 2>/dev/null || true
  wait "$rotel_pid" 2>/dev/null || true
  rm -rf "$rotel_work"
}
trap stop_rotel EXIT
rotel_listening=false
for _ in $(seq 100); do
  python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $rotel_http_port), 0.2)" 2>/dev/null && { rotel_listening=true; break; }
  kill -0 "$rotel_pid" 2>/dev/null || { cat "$rotel_work/rotel.log" >&2; exit 1; }
  sleep 0.1
done
$rotel_listening || { echo "rotel is not listening on 127.0.0.1:$rotel_http_port after 10 s:" >&2; cat "$rotel_work/rotel.log" >&2; exit 1; }
rotel_version="rotel $("$rotel" --version | awk '{print $2}') (PyPI rotel $(python3 -c 'import importlib.metadata as m; print(m.version("rotel"))'), --exporter blackhole)"

# check_rotel: fails with rotel's log if it exited during the run.
check_rotel() {
  kill -0 "$rotel_pid" 2>/dev/null || { echo "rotel exited during the run:" >&2; cat "$rotel_work/rotel.log" >&2; exit 1; }
}

# swift_otel_version: the swift-otel version the package resolved.
swift_otel_version() {
  python3 -c "import json; print(next(p['state'].get('version', '?') for p in json.load(open('Package.resolved'))['pins'] if p['identity'] == 'swift-otel'))" 2>/dev/null || echo '?'
}
