"""A throwaway HTTP server for tests: 127.0.0.1 on a free port, started on `with` entry and always
shut down on exit; and `reply`, one way to send a complete response from a handler."""
from __future__ import annotations

import functools
import threading
from http.server import BaseHTTPRequestHandler, SimpleHTTPRequestHandler, ThreadingHTTPServer


class QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):  # keep test output quiet
        pass


class LoopbackServer:
    def __init__(self, handler: type[BaseHTTPRequestHandler]):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def reply(handler: BaseHTTPRequestHandler, code: int, body: bytes, ctype: str = "application/json") -> None:
    handler.send_response(code)
    handler.send_header("Content-Type", ctype)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


class _QuietFiles(SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep test output (and compared stderr) quiet
        pass


def serving_directory(directory) -> LoopbackServer:
    """A LoopbackServer serving the files of `directory` (for `-f http://...` tests)."""
    return LoopbackServer(functools.partial(_QuietFiles, directory=str(directory)))
