#!/usr/bin/env python3
"""Drives a real sync engine between two "devices" for RealSyncTests.

    real-sync.py ENGINE WORKDIR      ENGINE: unison | rclone | syncthing

The devices are WORKDIR/a and WORKDIR/b (data folders); rclone also uses WORKDIR/hub, the
shared hub both devices bisync with. Everything the engines keep (HOME, archives, listings,
Syncthing's homes) lives in WORKDIR. Commands arrive one a line on standard input, and each
is answered with one line on standard output ("ok ..." or "error ..."):

    sync a | sync b   run the engine for that device (unison and syncthing: both at once)
    quit              stop (also at end of input)

The first line printed is "ready {json}"; for Syncthing the JSON is the configuration read
back through its REST API before the folder is shared (the test checks it). Syncthing must
run in a network namespace of its own with only lo (`unshare -n`); this script brings lo up
and refuses to start Syncthing when any other interface is there. Its processes are
stopped by their PIDs at quit, at end of input and on SIGTERM.
"""

import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
import xml.etree.ElementTree as ET

ENGINE, WORK = sys.argv[1], sys.argv[2]
A, B, HUB = (os.path.join(WORK, d) for d in ("a", "b", "hub"))
ENV = dict(os.environ, HOME=os.path.join(WORK, "home"), RCLONE_CONFIG=os.path.join(WORK, "rclone.conf"))
LOG = open(os.path.join(WORK, ENGINE + ".log"), "ab")
children = []


def run(args, ok=(0,)):
    r = subprocess.run(args, env=ENV, stdin=subprocess.DEVNULL, stdout=LOG, stderr=LOG)
    if r.returncode not in ok:
        raise RuntimeError("%s exited %d (see %s.log)" % (args[0], r.returncode, ENGINE))
    return r.returncode


def stop(*_):
    for p in children:
        if p.poll() is None:
            p.terminate()
    deadline = time.time() + 20
    for p in children:
        try:
            p.wait(max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    children.clear()


def answer(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


# ---- Unison: one run between a and b, -copyonconflict, *.nosync ignored.

UNISON = ["unison", A, B, "-batch", "-auto", "-copyonconflict", "-prefer", "newer",
          "-ignore", "Name {*.nosync,.*.nosync}", "-ui", "text", "-silent",
          "-confirmbigdel=false"]


def unison_sync(_device):
    run(UNISON)


# ---- rclone bisync: each device with the hub; --resync the first time, --force (small folder).

FILTERS = os.path.join(WORK, "bisync-filters.txt")
resynced = set()


def rclone_sync(device):
    path = A if device == "a" else B
    args = ["rclone", "bisync", path, HUB, "--filters-file", FILTERS, "--force",
            "--workdir", os.path.join(WORK, "home", "bisync")]
    if device not in resynced:
        args.append("--resync")
        resynced.add(device)
    run(args)


# ---- Syncthing: two instances on 127.0.0.1 only, everything that reaches out turned off.

KEY = "mn-real-sync-tests"
PORTS = {"a": (22101, 18401), "b": (22102, 18402)}  # listen, GUI; a namespace of our own
OFF = {
    "globalAnnounceEnabled": "false", "localAnnounceEnabled": "false", "relaysEnabled": "false",
    "natEnabled": "false", "urAccepted": "-1", "crashReportingEnabled": "false",
    "autoUpgradeIntervalH": "0", "startBrowser": "false", "announceLANAddresses": "false",
    "stunKeepaliveStartS": "0", "stunKeepaliveMinS": "0",
}
ids = {}


def api(device, path, body=None, method=None):
    url = "http://127.0.0.1:%d%s" % (PORTS[device][1], path)
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method or ("POST" if data else "GET"))
    request.add_header("X-API-Key", KEY)
    if data:
        request.add_header("Content-Type", "application/json")
    with urllib.request.urlopen(request, timeout=10) as response:
        text = response.read()
    return json.loads(text) if text.strip() else None


def wait(condition, what, seconds=120):
    deadline = time.time() + seconds
    while True:
        try:
            if condition():
                return
        except (OSError, ValueError):
            pass
        if time.time() > deadline:
            raise RuntimeError("timed out waiting for " + what)
        time.sleep(0.1)


def configure(device):
    home = os.path.join(WORK, "st-" + device)
    run(["syncthing", "generate", "--home", home, "--no-default-folder", "--skip-port-probing"])
    path = os.path.join(home, "config.xml")
    tree = ET.parse(path)
    options = tree.getroot().find("options")
    for name in ("listenAddress", "globalAnnounceServer", "stunServer"):
        for element in options.findall(name):
            options.remove(element)
    ET.SubElement(options, "listenAddress").text = "tcp://127.0.0.1:%d" % PORTS[device][0]
    for name, value in OFF.items():
        element = options.find(name)
        if element is None:
            element = ET.SubElement(options, name)
        element.text = value
    gui = tree.getroot().find("gui")
    gui.find("address").text = "127.0.0.1:%d" % PORTS[device][1]
    key = gui.find("apikey")
    if key is None:
        key = ET.SubElement(gui, "apikey")
    key.text = KEY
    tree.write(path)
    return home


def syncthing_start():
    # /proc/net/dev is the namespace's own (/sys/class/net is the mount's, the host's).
    with open("/proc/net/dev") as f:
        interfaces = sorted(line.split(":")[0].strip() for line in f.readlines()[2:])
    if interfaces != ["lo"]:
        raise RuntimeError("not in a network namespace with only lo: %s" % interfaces)
    run(["ip", "link", "set", "lo", "up"])
    homes = {d: configure(d) for d in ("a", "b")}
    for d, home in homes.items():
        env = dict(ENV, STNOUPGRADE="1", STNODEFAULTFOLDER="1")
        log = open(os.path.join(WORK, "syncthing-%s.log" % d), "ab")
        children.append(subprocess.Popen(
            ["syncthing", "serve", "--home", home, "--no-browser", "--no-restart", "--no-upgrade"],
            env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log))
    seen = {}
    for d in ("a", "b"):
        wait(lambda: api(d, "/rest/system/ping")["ping"] == "pong", "syncthing %s to start" % d)
        ids[d] = api(d, "/rest/system/status")["myID"]
        options = api(d, "/rest/config")["options"]
        seen[d] = {k: options.get(k) for k in (
            "listenAddresses", "globalAnnounceEnabled", "localAnnounceEnabled", "relaysEnabled",
            "natEnabled", "urAccepted", "crashReportingEnabled", "autoUpgradeIntervalH",
            "stunServers", "stunKeepaliveStartS", "announceLANAddresses")}
    # Shared only after the configuration was read back (and printed for the test).
    for d, other in (("a", "b"), ("b", "a")):
        with open(os.path.join(A if d == "a" else B, ".stignore"), "w") as f:
            f.write("*.nosync\n")
        api(d, "/rest/config/devices", {
            "deviceID": ids[other], "name": other,
            "addresses": ["tcp://127.0.0.1:%d" % PORTS[other][0]]})
        api(d, "/rest/config/folders", {
            "id": "minuta", "label": "Minuta", "path": A if d == "a" else B, "type": "sendreceive",
            "devices": [{"deviceID": ids["a"]}, {"deviceID": ids["b"]}],
            "fsWatcherEnabled": False, "rescanIntervalS": 3600})
    wait(lambda: all(api(d, "/rest/system/connections")["connections"][ids[o]]["connected"]
                     for d, o in (("a", "b"), ("b", "a"))), "the devices to connect")
    return seen


def tree(root):
    """What a device holds that the engine syncs: relative path -> bytes."""
    out = {}
    for base, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".stfolder", ".stversions")]
        for name in files:
            if name.endswith(".nosync") or name == ".stignore" or name.startswith(".syncthing."):
                continue
            full = os.path.join(base, name)
            with open(full, "rb") as f:
                out[os.path.relpath(full, root)] = f.read()
    return out


def idle(d):
    status = api(d, "/rest/db/status?folder=minuta")
    return status["state"] == "idle" and status["needTotalItems"] == 0


def syncthing_sync(_device):
    for d in ("a", "b"):
        api(d, "/rest/db/scan?folder=minuta", method="POST")
    # Settled: both idle, nothing needed, the same files with the same bytes, twice in a row.
    def settled():
        if not (idle("a") and idle("b")):
            return False
        first = tree(A)
        if first != tree(B):
            return False
        time.sleep(0.3)
        return idle("a") and idle("b") and tree(A) == first == tree(B)
    wait(settled, "the devices to hold the same files")


def main():
    signal.signal(signal.SIGTERM, lambda *_: (stop(), sys.exit(1)))
    ready = {}
    if ENGINE == "syncthing":
        ready = syncthing_start()
    elif ENGINE == "rclone":
        os.makedirs(HUB, exist_ok=True)
        open(ENV["RCLONE_CONFIG"], "a").close()
        with open(FILTERS, "w") as f:
            f.write("- *.nosync\n- .*.nosync\n")
    sync = {"unison": unison_sync, "rclone": rclone_sync, "syncthing": syncthing_sync}[ENGINE]
    answer("ready " + json.dumps(ready))
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        try:
            sync(words[1] if len(words) > 1 else "a")
            answer("ok")
        except Exception as error:  # the test shows it and fails
            answer("error " + str(error).replace("\n", " "))


try:
    main()
except Exception as error:
    answer("error " + str(error).replace("\n", " "))
finally:
    stop()
