#!/usr/bin/env python3
"""A loopback OTLP/HTTP collector stand-in for cost runs: answers every POST (/v1/traces,
/v1/metrics, /v1/logs) with 200 and an empty protobuf body, counts requests and bytes, keeps
nothing. Usage: bench/load/otlp-sink.py PORT (stops on SIGTERM or Ctrl-C; prints its counts)."""
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

counts = {"requests": 0, "bytes": 0}


class Sink(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        counts["requests"] += 1
        counts["bytes"] += n
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def stop(*_):
    raise KeyboardInterrupt


def main():
    server = ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Sink)
    signal.signal(signal.SIGTERM, stop)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    print(f"otlp-sink: {counts['requests']} requests, {counts['bytes']} bytes", flush=True)


if __name__ == "__main__":
    main()
