"""An S3-compatible server for the tests: moto's S3 in server mode, on 127.0.0.1:PORT, behind a layer
that counts requests by kind and injects faults into chosen ones.

    python _s3_server.py PORT

Control (plain HTTP on the same port, under a path no bucket can have):
- `GET /_lamina/counts`: requests since the last reset, by kind (HEAD, GET, LIST, PUT, COPY, DELETE, POST);
- `POST /_lamina/reset`: counts back to zero;
- `POST /_lamina/faults` with a JSON list of rules, each `{"method": "PUT", "match": "<regex on the path>",
  "mode": ..., "times": 1, "seconds": 5}`: the next `times` requests that match get the fault `mode`:
  `error` (a 500 without the request reaching the store), `stored-error` (the store takes the request,
  then a 500), `stored-hang` (the store takes it, the answer comes `seconds` later, after the client
  gave up); `GET /_lamina/faults` lists what is left of them."""

import json
import re
import sys
import threading
import time
from collections import Counter

from moto.moto_server.werkzeug_app import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple

_ERROR = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>InternalError</Code>'
          b"<Message>injected by the test server</Message></Error>")


def kind_of(method: str, query: str, path: str, headers) -> str:
    if method == "GET" and (("list-type" in query) or path.count("/") <= 1 or "prefix=" in query):
        return "LIST"
    if method == "PUT" and headers.get("HTTP_X_AMZ_COPY_SOURCE"):
        return "COPY"
    return method


class Hooks:
    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()
        self.counts = Counter()
        self.faults = []

    def __call__(self, environ, start_response):
        path = environ.get("PATH_INFO", "")
        method = environ["REQUEST_METHOD"]
        if path.startswith("/_lamina/"):
            return self.control(method, path, environ, start_response)
        with self.lock:
            self.counts[kind_of(method, environ.get("QUERY_STRING", ""), path, environ)] += 1
            fault = self.take(method, path)
        if fault is None:
            return self.app(environ, start_response)
        mode = fault["mode"]
        if mode == "error":
            length = int(environ.get("CONTENT_LENGTH") or 0)
            if length:
                environ["wsgi.input"].read(length)
            return self.error(start_response)
        stored = []

        def keep(status, headers, exc_info=None):
            stored.append(status)
            return lambda data: None
        for _ in self.app(environ, keep):
            pass
        if mode == "stored-hang":
            time.sleep(float(fault.get("seconds", 5)))
        return self.error(start_response)

    @staticmethod
    def error(start_response):
        start_response("500 Internal Server Error", [("Content-Type", "application/xml"),
                                                     ("Content-Length", str(len(_ERROR)))])
        return [_ERROR]

    def take(self, method, path):
        for rule in self.faults:
            if rule.get("method", method) == method and re.search(rule.get("match", ""), path):
                rule["times"] = rule.get("times", 1) - 1
                if rule["times"] <= 0:
                    self.faults.remove(rule)
                return dict(rule)
        return None

    def control(self, method, path, environ, start_response):
        with self.lock:
            if path == "/_lamina/counts":
                body = dict(self.counts)
            elif path == "/_lamina/reset":
                self.counts.clear()
                body = {}
            elif path == "/_lamina/faults" and method == "POST":
                length = int(environ.get("CONTENT_LENGTH") or 0)
                self.faults = list(json.loads(environ["wsgi.input"].read(length) or b"[]"))
                body = self.faults
            elif path == "/_lamina/faults":
                body = self.faults
            else:
                start_response("404 Not Found", [("Content-Type", "text/plain")])
                return [b"unknown control path"]
        data = json.dumps(body).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(data)))])
        return [data]


if __name__ == "__main__":
    run_simple("127.0.0.1", int(sys.argv[1]), Hooks(DomainDispatcherApplication(create_backend_app)),
               threaded=True, use_reloader=False)
