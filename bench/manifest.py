"""Manifest benchmark: read a multi-document YAML stream of realistic objects and re-emit
every object as YAML and as JSON (what `kubectl apply -f` reading and `-o yaml|json` printing
cost), with PyYAML's own pure-Python and libyaml paths for comparison.

Usage: python bench/manifest.py [--smoke] [--count N]. Prints figures only.

Reading YAML (against 2efd677; bench/apply's 500 objects, 10 files of 50 documents; callgrind
or best of 40, 2-core machine shared with other jobs): most documents are now read by
_goyaml_block, line by line without PyYAML, instead of libyaml's node tree built in Python.
decode_yaml 435 -> 135 k instructions per document, read_sources of the directory 270 -> 87 M
instructions, 24.1 -> 7.7 ms in-process (48 -> 15 us per object); this benchmark's read 324 ->
144 ms for 3,000 objects. Import: PyYAML is no longer loaded while every document is block-style,
nor dataclasses and typing by the reader; `import kubelite.manifest.sources` 35.6 -> 11.8 ms
(-X importtime, best of 7), a fresh process reading the directory 76.7 -> 34.4 ms (best of 15,
`python -c pass` 11.7). Documents the block reader declines (flow collections, anchors, tags,
folded scalars, escapes) pay for the attempt: at worst, declined at their last line, 234 -> 255
M instructions for the 500 (+9%), with libyaml's builder itself 220 -> 169 M (scalars in one
call, no constructor or resolver state, the composer's resolver hooks in C). bench/kustomize
(which reads resources through its own YAML v3 reader) 200 resources: 580 -> 554 M instructions.
What is left: per line, one pattern match in C and ~40 bytecodes of structure in _parse (the
split is half, the Python loop half); folded (>) scalars and double-quoted ones over lines still
go to libyaml.
"""
from __future__ import annotations

import argparse
import json
import time

import yaml

from kubelite.manifest import _goyaml_libyaml, read_text, to_json, to_yaml
from kubelite.manifest.documents import split_yaml


def _object(i: int) -> dict:
    kind = ("Deployment", "ConfigMap", "Service")[i % 3]
    obj: dict = {
        "apiVersion": "apps/v1" if kind == "Deployment" else "v1",
        "kind": kind,
        "metadata": {"name": f"app-{i}", "namespace": "default",
                     "labels": {"app.kubernetes.io/name": f"app-{i}", "tier": "backend", "version": "1.0"},
                     "annotations": {"example.com/description": "a fairly long description " * 4}},
    }
    if kind == "Deployment":
        obj["spec"] = {
            "replicas": 3,
            "selector": {"matchLabels": {"app": f"app-{i}"}},
            "template": {
                "metadata": {"labels": {"app": f"app-{i}"}},
                "spec": {"containers": [{
                    "name": "main", "image": f"registry.example.com/app:{i % 10}.0",
                    "args": ["--port=8080", "--verbose", "yes"],
                    "env": [{"name": f"VAR_{j}", "value": str(j)} for j in range(5)],
                    "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                    "resources": {"limits": {"cpu": "500m", "memory": "256Mi"}},
                }]},
            },
        }
    elif kind == "ConfigMap":
        obj["data"] = {"config.yaml": "server:\n  port: 8080\n  debug: false\n", "LOG_LEVEL": "info",
                       "ratio": "0.5", "enabled": "true", "empty": ""}
    else:
        obj["spec"] = {"selector": {"app": f"app-{i}"},
                       "ports": [{"name": "http", "port": 80, "targetPort": 8080, "protocol": "TCP"}],
                       "type": "ClusterIP"}
    return obj


def _rate(label: str, count: int, seconds: float) -> None:
    print(f"  {label:<44} {count / seconds:>10,.0f} objects/s  ({seconds * 1000:,.0f} ms)")


def _time(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--smoke", action="store_true", help="small sizes, a few seconds")
    parser.add_argument("--count", type=int, default=None)
    args = parser.parse_args()
    count = args.count or (300 if args.smoke else 10_000)

    objects = [_object(i) for i in range(count)]
    stream = "---\n".join(to_yaml(o) for o in objects)
    print(f"manifest benchmark: {count} objects, {len(stream) / 1e6:.1f} MB of YAML "
          f"(libyaml: {'yes' if getattr(yaml, '__with_libyaml__', False) else 'no'})")

    manifests: list = []
    _rate("read (kubelite, go-yaml rules)", count, _time(lambda: manifests.extend(read_text(stream, "bench"))))
    read = [m.obj for m in manifests]
    assert len(read) == count
    json_stream = "".join(to_json(o) for o in read)
    _rate("read JSON stream (kubelite)", count, _time(lambda: read_text(json_stream, "bench")))
    _rate("to_yaml (kubelite)", count, _time(lambda: [to_yaml(o) for o in read]))
    _rate("to_json (kubelite)", count, _time(lambda: [to_json(o) for o in read]))

    print(" for comparison, PyYAML / json on the same data:")
    pure_count = min(count, 2000)
    pure_stream = "---\n".join(to_yaml(o) for o in objects[:pure_count])
    _rate("read (kubelite rules on pure-Python PyYAML)", pure_count,
          _time(lambda: [_goyaml_libyaml.decode_yaml(chunk, _goyaml_libyaml.GoYamlPyLoader)
                         for chunk, _ in split_yaml(pure_stream, "bench")]))
    _rate("yaml.safe_load_all (pure Python)", pure_count,
          _time(lambda: list(yaml.load_all(pure_stream, Loader=yaml.SafeLoader))))
    if getattr(yaml, "CSafeLoader", None):
        _rate("yaml.load_all (CSafeLoader)", count, _time(lambda: list(yaml.load_all(stream, Loader=yaml.CSafeLoader))))
    _rate("yaml.dump (pure Python SafeDumper)", pure_count,
          _time(lambda: [yaml.dump(o, Dumper=yaml.SafeDumper) for o in read[:pure_count]]))
    if getattr(yaml, "CSafeDumper", None):
        _rate("yaml.dump (CSafeDumper)", count, _time(lambda: [yaml.dump(o, Dumper=yaml.CSafeDumper) for o in read]))
    _rate("json.dumps(indent=4, sort_keys=True)", count,
          _time(lambda: [json.dumps(o, indent=4, sort_keys=True) for o in read]))


if __name__ == "__main__":
    main()
