#!/usr/bin/env python3
"""A sync client, for the live-sync end-to-end tests: it never takes mn's lock.

It brings other devices' newer versions of documents into a data folder while mn runs there,
as Syncthing, Dropbox or iCloud do: each new version is what it last synced of the document
plus one more change (an Automerge change chunk from CHUNKS, appended: Automerge files are
concatenations of chunks). It writes the version to a file of its own outside the folder and
renames it over the document; when the document changed since it last synced it, it writes
the version as a conflict copy ("NAME N.automerge") instead, as a real client does.

    sync-client.py ROOT CHUNKS LOG SEED NAME...

Once it has read the folder's state it creates ROOT/../sync-client-ready; it runs until the
file ROOT/../stop-sync-client exists and it has brought at least one version, then exits.
Each version it writes is
one line of LOG: "<chunk file> <logical name> rename|copy random|timed". Half the arrivals
come at random moments, 0 to 4 ms apart; the other half are timed: the client watches the
folder for mn's temporaries (".NAME.mn-XXXXXX.nosync") and brings a version of NAME the
moment one appears, inside mn's replace.

The client checks that the document is still what it last synced, then puts its version in
place with renameat2: RENAME_NOREPLACE where there was no file, else RENAME_EXCHANGE, and
looks at what it displaced. When that is not what it checked (mn replaced the document in
between), it keeps the displaced file as a conflict copy, as a careful client does: a client
that renamed over it would throw away a file it never read, a loss no protocol of mn's can
see (README, "Live sync").
"""
import ctypes
import errno
import os
import random
import sys
import time

AT_FDCWD = -100
RENAME_NOREPLACE = 1
RENAME_EXCHANGE = 2
libc = ctypes.CDLL(None, use_errno=True)


def renameat2(source, target, flags):
    """renameat2(2); False when it fails with EEXIST or ENOENT (the target came or went)."""
    if libc.renameat2(AT_FDCWD, source.encode(), AT_FDCWD, target.encode(), flags) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EEXIST, errno.ENOENT):
        return False
    raise OSError(code, os.strerror(code), target)


def conflict_copy(directory, name):
    """A free conflict-copy path for the document NAME: "NAME 2.automerge", "NAME 3…"."""
    stem = name.rsplit("/", 1)[-1][: -len(".automerge")]
    n = 2
    while os.path.exists(os.path.join(directory, f"{stem} {n}.automerge")):
        n += 1
    return os.path.join(directory, f"{stem} {n}.automerge")


def identity(path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except (FileNotFoundError, IsADirectoryError):
        return b""


def watch_for_temporary(root, directories, names, stop, rng):
    """Polls for one of mn's temporaries for up to 50 ms; the document it is for, or None."""
    known = set(names)
    deadline = time.monotonic() + 0.05
    while time.monotonic() < deadline and not os.path.exists(stop):
        for directory in directories:
            try:
                entries = os.listdir(directory)
            except FileNotFoundError:
                continue
            for entry in entries:
                if entry.startswith(".") and ".automerge.mn-" in entry and entry.endswith(".nosync"):
                    target = entry[1 : entry.index(".mn-")]
                    relative = os.path.relpath(os.path.join(directory, target), root)
                    if relative in known:
                        return relative
    return None


def main():
    root, chunks_dir, log_path, seed = sys.argv[1:5]
    names = sys.argv[5:]
    rng = random.Random(int(seed))
    staging = os.path.join(os.path.dirname(root.rstrip("/")), "sync-client-staging")
    os.makedirs(staging, exist_ok=True)
    stop = os.path.join(os.path.dirname(root.rstrip("/")), "stop-sync-client")
    chunks = sorted(os.listdir(chunks_dir))
    synced = {}
    for name in names:
        path = os.path.join(root, name)
        synced[name] = (identity(path), read(path))
    # Tell the test that the folder's state is read: mn may start.
    open(os.path.join(os.path.dirname(root.rstrip("/")), "sync-client-ready"), "w").close()
    with open(log_path, "a") as log:
        next_chunk = 0
        directories = sorted({os.path.dirname(os.path.join(root, n)) for n in names})
        # At least one version is brought, even when mn was done before the first one
        # (a loaded machine): the round then still checks that the rerun merges it.
        while next_chunk < len(chunks) and (next_chunk == 0 or not os.path.exists(stop)):
            timing = "random" if rng.random() < 0.5 or os.path.exists(stop) else "timed"
            if timing == "random":
                time.sleep(rng.uniform(0, 0.004))
                name = rng.choice(names)
            else:
                name = watch_for_temporary(root, directories, names, stop, rng)
                if name is None:
                    continue
            path = os.path.join(root, name)
            last_identity, last_bytes = synced[name]
            chunk = chunks[next_chunk]
            next_chunk += 1
            with open(os.path.join(chunks_dir, chunk), "rb") as f:
                version = last_bytes + f.read()
            directory = os.path.dirname(path)
            if not os.path.isdir(directory):
                continue
            own = os.path.join(staging, chunk)
            with open(own, "wb") as f:
                f.write(version)
                f.flush()
                os.fsync(f.fileno())
            mode = "copy"
            if identity(path) == last_identity:
                if last_identity is None:
                    placed = renameat2(own, path, RENAME_NOREPLACE)
                    displaced_changed = False
                else:
                    placed = renameat2(own, path, RENAME_EXCHANGE)
                    # `own` now holds what the exchange displaced.
                    displaced_changed = placed and identity(own) != last_identity
                if placed:
                    mode = "rename"
                    if displaced_changed:
                        os.rename(own, conflict_copy(directory, name))
                    elif last_identity is not None:
                        os.remove(own)
            if mode == "copy":
                os.rename(own, conflict_copy(directory, name))
            log.write(f"{chunk} {name} {mode} {timing}\n")
            log.flush()
            synced[name] = (identity(path), read(path))


if __name__ == "__main__":
    main()
