#!/usr/bin/env python3
"""Fails when mn's Swift code uses an API newer than the macOS it declares (mn.md §15).

On Linux the compiler never checks macOS availability, yet the toolchain knows it: the
standard library's symbol graphs (`swift symbolgraph-extract`) give every public symbol's
`@available(macOS …)`. This script

1. extracts the symbol graphs of the modules every Swift file imports implicitly or may
   import (Swift, _Concurrency, _StringProcessing, Synchronization) and keeps each symbol
   whose macOS availability, or that of a type or extension it belongs to, is newer than
   the minimum;
2. type-checks each Swift target of the package again with `swiftc -dump-ast
   -dump-ast-format json` (against the modules of the last `swift build`, so that it runs
   after one) and collects every declaration and type its code refers to, by USR;
3. prints each reference to a symbol of step 1 with its file and line, and exits 1.

Usage:
  scripts/check-availability.py [--minimum VERSION] [--build-dir .build/debug]
      checks every Swift target of the package (after `swift build --build-tests`) against
      the macOS that Package.swift declares (`platforms:`), or VERSION;
  scripts/check-availability.py --source FILE.swift…
      checks those files alone, as one module that imports only the standard library (the
      test that proves the check fails on a planted use runs this way).

Only the standard library's modules carry macOS availability on Linux; Foundation, which
only the Darwin files import, is checked there by the compiler of a Mac (`make mac-check`).
"""

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

STDLIB_MODULES = ["Swift", "_Concurrency", "_StringProcessing", "Synchronization"]


def run(cmd, **kw):
    return subprocess.run(cmd, check=False, capture_output=True, text=True, **kw)


def version_tuple(v):
    return tuple(int(p) for p in v.split("."))


def host_target():
    out = run(["swiftc", "-print-target-info"]).stdout
    return json.loads(out)["target"]["triple"]


def too_new(minimum, cache_dir):
    """USR -> (name, macOS version) of every standard-library symbol newer than `minimum`."""
    version = run(["swiftc", "--version"]).stdout + run(["swiftc", "--version"]).stderr
    key = hashlib.sha256((version + repr(minimum)).encode()).hexdigest()[:16]
    cached = os.path.join(cache_dir, "too-new-" + key + ".json")
    if os.path.exists(cached):
        with open(cached) as f:
            return {k: tuple(v) for k, v in json.load(f).items()}
    target = host_target()
    result = {}
    with tempfile.TemporaryDirectory() as graphs:
        for module in STDLIB_MODULES:
            done = run(["swift", "symbolgraph-extract", "-module-name", module,
                        "-target", target, "-output-dir", graphs,
                        "-minimum-access-level", "public"])
            if done.returncode != 0:
                sys.exit("check-availability: symbolgraph-extract of %s failed:\n%s"
                         % (module, done.stderr))
        names, introduced, parents, defaults = {}, {}, {}, {}
        for name in os.listdir(graphs):
            with open(os.path.join(graphs, name)) as f:
                graph = json.load(f)
            for symbol in graph["symbols"]:
                usr = symbol["identifier"]["precise"]
                names[usr] = ".".join(symbol.get("pathComponents", [])) or usr
                for a in symbol.get("availability", []):
                    if a.get("domain") == "macOS" and "introduced" in a:
                        i = a["introduced"]
                        v = (i.get("major", 0), i.get("minor", 0), i.get("patch", 0))
                        introduced[usr] = max(v, introduced.get(usr, (0,)))
            for r in graph.get("relationships", []):
                if r["kind"] in ("memberOf", "optionalRequirementOf", "requirementOf"):
                    parents.setdefault(r["source"], set()).add(r["target"])
                elif r["kind"] == "defaultImplementationOf":
                    defaults.setdefault(r["target"], set()).add(r["source"])

        def effective(usr, seen=()):
            # A member is no older than the type (or the extension) that holds it.
            best = introduced.get(usr, (0,))
            for p in parents.get(usr, ()):
                if p not in seen:
                    best = max(best, effective(p, seen + (usr,)))
            return best

        for usr in names:
            v = effective(usr)
            # A requirement added to a protocol later (FixedWidthInteger's `&*` in macOS 15)
            # that an older extension method of the same name implements by default: on
            # Linux the compiler picks the requirement, on an older macOS it picks that
            # method, so the code builds there.
            older = [effective(d) for d in defaults.get(usr, ())]
            if older and min(older) <= minimum:
                continue
            if v > minimum:
                result[usr] = (names[usr], ".".join(str(p) for p in v[:2]))
    os.makedirs(cache_dir, exist_ok=True)
    with open(cached, "w") as f:
        json.dump(result, f)
    return result


def line_of(path, offset, cache={}):
    if path not in cache:
        with open(path, "rb") as f:
            cache[path] = f.read()
    return cache[path].count(b"\n", 0, offset) + 1


def references(node, filename, start, out):
    """Appends (file, byte offset, USR) for every declaration or type `node` refers to."""
    if isinstance(node, dict):
        if node.get("_kind") == "source_file":
            filename = node.get("filename", filename)
        r = node.get("range")
        if isinstance(r, dict) and isinstance(r.get("start"), int):
            start = r["start"]
        for key in ("decl_usr", "type_usr"):
            usr = node.get(key)
            if isinstance(usr, str) and usr:
                out.append((filename, start, usr))
        for value in node.values():
            if isinstance(value, (dict, list)):
                references(value, filename, start, out)
    elif isinstance(node, list):
        for value in node:
            references(value, filename, start, out)


def dump_ast(module, files, build_dir, include_dirs, is_executable):
    """The JSON ASTs of `files` type-checked as `module`, one per file."""
    cmd = ["swiftc", "-dump-ast", "-dump-ast-format", "json", "-module-name", module,
           "-swift-version", "6", "-I", build_dir + "/Modules"]
    for d in include_dirs:
        cmd += ["-I", d]
    if not is_executable:
        cmd.append("-parse-as-library")
    if module.startswith("DarwinCompileCheck"):
        # The Darwin compile checks (Package.swift) are built with this define, and some of
        # their files compile only with it (their other branches use internal symbols).
        cmd += ["-D", "MN_DARWIN_SHIM"]
    with tempfile.TemporaryDirectory() as out_dir:
        cmd += ["-output-file-map", write_output_map(out_dir, files)] + files
        done = run(cmd)
        if done.returncode != 0:
            sys.exit("check-availability: swiftc -dump-ast of %s failed:\n%s"
                     % (module, done.stderr[-4000:]))
        for f in files:
            with open(os.path.join(out_dir, ast_name(f))) as j:
                yield json.load(j)


def ast_name(path):
    return hashlib.sha256(path.encode()).hexdigest()[:16] + ".json"


def write_output_map(out_dir, files):
    path = os.path.join(out_dir, "output-file-map.json")
    with open(path, "w") as f:
        json.dump({src: {"ast-dump": os.path.join(out_dir, ast_name(src))} for src in files}, f)
    return path


def package_description(root):
    done = run(["swift", "package", "describe", "--type", "json"], cwd=root)
    if done.returncode != 0:
        sys.exit("check-availability: swift package describe failed:\n" + done.stderr)
    return json.loads(done.stdout[done.stdout.index("{"):])


def declared_minimum(root):
    # Read from Package.swift's text, not `swift package describe`: a `swift test` running
    # this script holds the package's lock, which `describe` would wait for.
    with open(os.path.join(root, "Package.swift")) as f:
        m = re.search(r"\.macOS\(\.v(\d+)(?:_(\d+))?\)", f.read())
    if not m:
        sys.exit("check-availability: Package.swift declares no macOS platform")
    return "%s.%s" % (m.group(1), m.group(2) or "0")


def package_targets(root, description):
    targets, include_dirs = [], []
    for t in description["targets"]:
        path = os.path.join(root, t["path"])
        if t.get("type") == "system-target":
            include_dirs.append(path)
        elif t.get("module_type") == "ClangTarget":
            # A C target's module map is in its include folder (DarwinShimC, test-only).
            include_dirs.append(os.path.join(path, "include"))
        elif t.get("module_type") == "SwiftTarget" and t.get("type") != "test":
            files = [os.path.join(path, s) for s in t.get("sources", []) if s.endswith(".swift")]
            targets.append((t["c99name"], files, t.get("type") == "executable"))
    return targets, include_dirs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--minimum", help="default: the macOS that Package.swift declares")
    parser.add_argument("--build-dir", default=".build/debug")
    parser.add_argument("--source", nargs="+")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if not args.minimum:
        args.minimum = declared_minimum(root)
    minimum = version_tuple(args.minimum)
    while len(minimum) < 3:
        minimum += (0,)
    build_dir = os.path.abspath(args.build_dir)
    table = too_new(minimum, os.path.join(root, ".build", "availability"))

    if args.source:
        targets = [("Planted", [os.path.abspath(s) for s in args.source], False)]
        include_dirs = []
    else:
        targets, include_dirs = package_targets(root, package_description(root))

    found = set()
    for module, files, is_executable in targets:
        if not files:
            continue
        for ast in dump_ast(module, files, build_dir, include_dirs, is_executable):
            refs = []
            references(ast, None, 0, refs)
            for filename, offset, usr in refs:
                if usr in table:
                    name, version = table[usr]
                    rel = filename or module
                    if rel.startswith(root + os.sep):
                        rel = os.path.relpath(rel, root)
                    line = line_of(filename, offset) if filename else 0
                    found.add((rel, line, name, version))
    for rel, line, name, version in sorted(found):
        print("%s:%d: %s needs macOS %s; the package declares macOS %s"
              % (rel, line, name, version, args.minimum), file=sys.stderr)
    if found:
        sys.exit(1)
    print("check-availability: %d modules, no API newer than macOS %s"
          % (len(targets), args.minimum))


if __name__ == "__main__":
    main()
