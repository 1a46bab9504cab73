"""A small on-disk cache of symbolic text, so the same program's next run skips sympy.

Importing sympy costs about 0.3 s, most of a run's start-up; the symbolic forms depend
only on the program and its inputs' kinds and shapes, never on their values. A shell
loop over points (`for x in ...; do gradcli grad "$f" --at x=$x; done`) so pays for
sympy once. Entries are JSON text, read back as data only, never executed. Each file
holds its full key, so a hash collision or a stranger's file is a miss, never a wrong
answer. Any error (no home directory, a read-only disk, a corrupt file) is a miss too:
the cache can make a run faster, never make it fail.

The forms also depend on the code that derived them: a rule can change within a version (a
development checkout, an install from a branch). So the user's cache stores each entry under
its key and a digest of the package's source (sources_digest), read once per process and only
on the symbolic path: a changed rule is a miss, never the old formula.

GRADCLI_CACHE_DIR sets the folder; an empty value turns the cache off.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import stat
from collections.abc import Callable
from importlib.util import find_spec
from pathlib import Path

MAX_ENTRIES = 512  # past this, the oldest quarter is removed
MAX_ENTRY_BYTES = 1 << 20  # bigger results are cheaper to recompute than to keep


class DiskCache:
    """A str -> str mapping in a folder of small JSON files, one per key.

    `sources` (the user's cache: sources_digest) names the code the values came from; it is
    part of every stored key, so another code's entry is a miss, and an unknown one ("") turns
    the cache off."""

    def __init__(self, folder: Path, sources: Callable[[], str] | None = None) -> None:
        self.folder = folder
        self.sources = sources

    def _stored(self, key: str) -> str | None:
        """The key an entry is kept under: `key` and the digest of its sources (None: no cache)."""
        if self.sources is None:
            return key
        digest = self.sources()
        return f"{key}\nsources {digest}" if digest else None

    @classmethod
    def default(cls) -> DiskCache | None:
        """The user's cache: GRADCLI_CACHE_DIR, else $XDG_CACHE_HOME/gradcli or ~/.cache/gradcli."""
        from .. import __version__

        setting = os.environ.get("GRADCLI_CACHE_DIR")
        if setting == "":
            return None
        sympy = _sympy_version()
        if sympy is None:
            return None
        if setting:
            base = Path(setting)
        else:
            xdg = os.environ.get("XDG_CACHE_HOME", "")
            try:
                # The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored.
                base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
            except RuntimeError:  # no home directory
                return None
            if not base.is_absolute() or base == Path("/.cache"):  # HOME unset or empty
                return None
            base = base / "gradcli"
        # Output depends on both versions: a new one starts a new folder (and on the source
        # within a version: each entry's key holds its digest).
        return cls(base / f"gradcli-{__version__}-sympy-{sympy}", sources=sources_digest)

    def _path(self, key: str) -> Path:
        return self.folder / (hashlib.sha256(key.encode()).hexdigest()[:32] + ".json")

    def get(self, key: str) -> str | None:
        """The value stored for `key`, or None for a miss (any doubt about the file is one)."""
        stored_key = self._stored(key)
        if stored_key is None:
            return None
        key = stored_key
        try:
            text = _read_own_file(self._path(key), MAX_ENTRY_BYTES)
            stored = json.loads(text) if text is not None else None
        except (OSError, ValueError, RecursionError):
            return None
        if (
            not isinstance(stored, dict)
            or stored.get("key") != key
            or not isinstance(stored.get("value"), str)
        ):
            return None
        return stored["value"]

    def __setitem__(self, key: str, value: str) -> None:
        import tempfile  # with shutil and random: only on a miss, which imports sympy anyway

        stored_key = self._stored(key)
        if stored_key is None:
            return
        key = stored_key
        text = json.dumps({"key": key, "value": value})
        if len(text) > MAX_ENTRY_BYTES:
            return
        temporary = None
        try:
            self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            # Write aside, then rename: a reader never sees half a file.
            handle, temporary = tempfile.mkstemp(dir=self.folder, suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            os.replace(temporary, self._path(key))
            temporary = None
            self._prune()
        except OSError:
            if temporary is not None:
                with contextlib.suppress(OSError):
                    os.unlink(temporary)

    def _prune(self) -> None:
        entries = []
        for entry in os.scandir(self.folder):
            if entry.name.endswith(".json"):
                try:
                    entries.append((entry.stat(follow_symlinks=False).st_mtime, entry.path))
                except OSError:
                    continue
        if len(entries) <= MAX_ENTRIES:
            return
        entries.sort()
        for _, path in entries[: len(entries) - MAX_ENTRIES * 3 // 4]:
            with contextlib.suppress(OSError):
                os.unlink(path)


def _read_own_file(path: Path, limit: int) -> str | None:
    """A regular file of ours, read up to `limit` bytes; None if it is anything else.

    No symlinks (O_NOFOLLOW), no FIFOs or devices (O_NONBLOCK, then S_ISREG), nothing
    another user wrote (a shared folder cannot plant answers), nothing oversized.
    """
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    handle = os.open(path, flags)
    with os.fdopen(handle, "rb") as file:
        status = os.fstat(handle)
        if not stat.S_ISREG(status.st_mode) or status.st_size > limit:
            return None
        if hasattr(os, "getuid") and status.st_uid != os.getuid():
            return None
        return file.read(limit + 1).decode("utf-8")


def _sympy_version() -> str | None:
    """sympy's version read from its release file, without importing sympy (that is the point)."""
    try:
        spec = find_spec("sympy")
        if spec is None or spec.origin is None:
            return None
        release = Path(spec.origin).with_name("release.py").read_text(encoding="utf-8")
    except (OSError, ImportError, ValueError):
        return None
    found = re.search(r"""__version__\s*=\s*["']([^"']+)["']""", release)
    return found.group(1) if found else None


# The modules that turn a program into symbolic text: all but the renderers and `run`'s
# interpreter, which never reach the cached forms.
_NOT_SOURCES = ("render", "script")


@functools.lru_cache(maxsize=1)
def sources_digest() -> str:
    """sha256 of gradcli's own source files (names and bytes, in a fixed order): ~1 MB read
    once per process, a few ms. "" when they cannot be read (a zip or .pyc-only install)."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    digest = hashlib.sha256()
    found = []
    try:
        for folder, subfolders, files in os.walk(package):
            if folder == package:
                subfolders[:] = [name for name in subfolders if name not in _NOT_SOURCES]
            relative = os.path.relpath(folder, package)
            found += [os.path.join(relative, name) for name in files if name.endswith(".py")]
        for name in sorted(found):
            with open(os.path.join(package, name), "rb") as file:
                digest.update(name.replace(os.sep, "/").encode() + b"\0" + file.read() + b"\0")
    except OSError:
        return ""
    return digest.hexdigest()[:32] if found else ""
