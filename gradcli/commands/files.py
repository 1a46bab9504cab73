"""@FILE: VALUEs and programs read from files or stdin, each bounded before it is read.

A shell cannot pass a million-element VALUE as an argument ("Argument list too long"), so
`--at x=@x.npy` reads it from a file. Every path is checked with os.stat first: a FIFO or a
device would block or never end, a directory cannot be read, and a file over its byte cap is
refused without reading a byte of it. NumPy files are never unpickled (allow_pickle=False),
and their shape and dtype are weighed from the header before the data is read.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import Any

import numpy as np

from .. import limits
from ..errors import LimitError, ValueInputError

VALUE_SUFFIXES = (".json", ".npy", ".npz", ".csv", ".txt")
KINDS = "a .json, .npy, .npz (@f.npz:key), .csv or .txt file, or @- for standard input"
# A float file keeps its precision: float16 is widened to float32 (torch.from_numpy keeps
# float16, which gradcli does not compute in), other floats are the file's own.
_FLOATS = {np.dtype(np.float16): np.dtype(np.float32)}


def check_regular(path: str, what: str, cap: int, cap_name: str) -> int:
    """The file's size, after making sure it is a regular file within `cap` bytes."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise ValueInputError(f"{what}: no such file") from None
    except OSError as exc:
        raise ValueInputError(f"{what}: cannot read it: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ValueInputError(f"{what}: is a directory, not a file")
    if not stat.S_ISREG(info.st_mode):
        # A FIFO would wait for a writer, /dev/zero would never end: only regular files are read.
        raise ValueInputError(
            f"{what}: is not a regular file (a pipe, device or socket); save it to a file first"
        )
    if info.st_size > cap:
        raise LimitError(f"{what}: the file has {info.st_size:,} bytes, over the limit {cap_name}")
    return info.st_size


def read_bytes(path: str, what: str, cap: int, cap_name: str) -> bytes:
    """A regular file's bytes, at most `cap` of them (it may grow between stat and read)."""
    check_regular(path, what, cap, cap_name)
    try:
        with open(path, "rb") as handle:
            data = handle.read(cap + 1)
    except OSError as exc:
        raise ValueInputError(f"{what}: cannot read it: {exc.strerror or exc}") from None
    if len(data) > cap:
        raise LimitError(f"{what}: the file has more than {cap:,} bytes, over the limit {cap_name}")
    return data


def read_stdin(what: str, cap: int, cap_name: str) -> bytes:
    """Standard input, read only up to `cap` bytes (`yes | gradcli ...` must end at once)."""
    if sys.stdin is None:
        raise ValueInputError(f"{what}: standard input is closed")
    stream = getattr(sys.stdin, "buffer", None)
    if stream is not None:
        data = stream.read(cap + 1)
    else:
        data = sys.stdin.read(cap + 1).encode("utf-8", "surrogateescape")
    if len(data) > cap:
        raise LimitError(f"{what}: standard input is longer than {cap:,} bytes, over the limit {cap_name}")
    return data


def decode(data: bytes, what: str, where: str) -> str:
    try:
        return data.decode("utf-8-sig")  # a spreadsheet's BOM is not part of the text
    except UnicodeDecodeError as exc:
        raise ValueInputError(f"{what}: {where} is not valid UTF-8 (byte {exc.start})") from None


def program_file(path: str) -> str:
    """A program's text from a file (`gradcli grad @prog.txt`), within the program-length cap."""
    most = limits.MAX_PROGRAM_CHARS * 4  # UTF-8 needs at most 4 bytes a character
    data = read_bytes(
        path, f"EXPR @{path}", most, f"MAX_PROGRAM_CHARS={limits.MAX_PROGRAM_CHARS:,} characters"
    )
    return decode(data, f"EXPR @{path}", "the file").rstrip()


def split_spec(spec: str) -> tuple[str, str | None]:
    """`f.npz:key` -> ("f.npz", "key"); any other path is whole (a colon may be in its name)."""
    head, sep, key = spec.rpartition(":")
    if sep and head.lower().endswith(".npz") and key:
        return head, key
    return spec, None


def value_file(spec: str, what: str) -> np.ndarray:
    """The array in `spec` (the text after @): JSON, NumPy, CSV or whitespace-separated text.

    Floats keep the file's dtype (float32 or float64); integers and bools stay integers and
    bools, as a VALUE written in the command line does."""
    path, key = split_spec(spec)
    check_regular(path, what, limits.MAX_FILE_BYTES, f"MAX_FILE_BYTES={limits.MAX_FILE_BYTES:,}")
    suffix = os.path.splitext(path)[1].lower()
    if suffix not in VALUE_SUFFIXES:
        raise ValueInputError(
            f"{what}: cannot tell what the file holds from its name; give {KINDS}",
        )
    if suffix == ".npy":
        return _checked(_npy(path, what), what)
    if suffix == ".npz":
        return _checked(_npz(path, key, what), what)
    data = read_bytes(path, what, limits.MAX_VALUE_CHARS, f"MAX_VALUE_CHARS={limits.MAX_VALUE_CHARS:,}")
    text = decode(data, what, "the file")
    if suffix == ".json":
        return json_text(text, what, "the file")
    return _checked(_table(text, what, "," if suffix == ".csv" else None), what)


def json_text(text: str, what: str, where: str) -> np.ndarray:
    """A JSON number or nested array (strings "nan"/"inf" as gradcli writes them)."""
    import json

    from ..values import to_array

    try:
        obj = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueInputError(
            f"{what}: {where} is not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})"
        ) from None
    except (RecursionError, ValueError):
        raise ValueInputError(
            f"{what}: {where} is not JSON this reader can hold (too deep or too long a number)"
        ) from None
    return to_array(obj, np.dtype(np.float64), what, keep=True)


def _weigh(shape: tuple[int, ...], dtype: np.dtype, what: str) -> None:
    """Refuse by the header, before any data is read."""
    if dtype.hasobject or dtype.kind not in "biuf":
        raise ValueInputError(
            f"{what}: the file holds {dtype} values; gradcli reads real numbers (and bools)"
        )
    if len(shape) > limits.MAX_DIMS:
        raise LimitError(
            f"{what}: the array has {len(shape)} dimensions, over the limit MAX_DIMS={limits.MAX_DIMS}"
        )
    count = 1
    for n in shape:
        count *= n
    limits.check(count, limits.MAX_ELEMENTS, f"{what}: elements", "MAX_ELEMENTS")


def _npy(path: str, what: str) -> np.ndarray:
    check_regular(path, what, limits.MAX_FILE_BYTES, f"MAX_FILE_BYTES={limits.MAX_FILE_BYTES:,}")
    try:
        # Memory-mapped, the header is read and nothing else: the shape and dtype are weighed
        # first. A file shorter than its header says fails here, before any copy.
        mapped = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        if "Python objects" in str(exc) or "allow_pickle" in str(exc):
            raise ValueInputError(
                f"{what}: not a .npy array of numbers: reading it would need unpickling, which gradcli never does"
            ) from None
        raise ValueInputError(f"{what}: not a .npy array NumPy can read ({_reason(exc)})") from None
    if not isinstance(mapped, np.ndarray):  # a .npz archive under a .npy name
        getattr(mapped, "close", lambda: None)()
        raise ValueInputError(f"{what}: not a .npy array")
    _weigh(mapped.shape, mapped.dtype, what)
    return np.array(mapped)  # the copy leaves the mapping, which closes with it


def _npz(path: str, key: str | None, what: str) -> np.ndarray:
    import zipfile

    check_regular(path, what, limits.MAX_FILE_BYTES, f"MAX_FILE_BYTES={limits.MAX_FILE_BYTES:,}")
    try:
        archive = np.load(path, allow_pickle=False)
    except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
        raise ValueInputError(f"{what}: not a .npz archive NumPy can read ({_reason(exc)})") from None
    if not hasattr(archive, "files"):  # a .npy saved under a .npz name
        raise ValueInputError(f"{what}: not a .npz archive")
    with archive:
        names = list(archive.files)
        if key is None:
            if len(names) != 1:
                shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
                raise ValueInputError(
                    f"{what}: the archive holds {len(names)} arrays ({shown}); name one as @{path}:KEY"
                )
            key = names[0]
        if key not in names:
            shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
            raise ValueInputError(f"{what}: the archive has no array {key!r}; it holds {shown or 'none'}")
        try:
            # The member's header first: a small compressed archive may claim a huge array.
            member = key if key in archive.zip.namelist() else key + ".npy"
            with archive.zip.open(member) as handle:
                version = np.lib.format.read_magic(handle)
                header = {
                    (1, 0): np.lib.format.read_array_header_1_0,
                    (2, 0): np.lib.format.read_array_header_2_0,
                }.get(version)
                if header is None:
                    raise ValueError(f".npy format version {version[0]}.{version[1]} is not read here")
                shape, _, dtype = header(handle)
            _weigh(tuple(shape), np.dtype(dtype), what)
            return archive[key]
        except (ValueError, OSError, EOFError, zipfile.BadZipFile) as exc:
            raise ValueInputError(f"{what}: not an array NumPy can read ({_reason(exc)})") from None


def _table(text: str, what: str, delimiter: str | None) -> np.ndarray:
    """Rows of numbers as np.loadtxt reads them: one row or column is 1-D, one number 0-D."""
    import io
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # an empty file warns; it is refused below
            array = np.loadtxt(io.StringIO(text), delimiter=delimiter, dtype=np.float64, ndmin=0)
    except (ValueError, IndexError) as exc:
        raise ValueInputError(f"{what}: not a table of numbers ({_reason(exc)})") from None
    if array.size == 0:
        raise ValueInputError(f"{what}: the file holds no numbers")
    return array


def _checked(array: np.ndarray, what: str) -> np.ndarray:
    _weigh(array.shape, array.dtype, what)
    dtype = _FLOATS.get(array.dtype, array.dtype)
    if array.dtype.kind == "f" and dtype not in (np.float32, np.float64):
        dtype = np.dtype(np.float64)  # float128 and others: computed in float64
    return array.astype(dtype, copy=False)


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:200] if text else type(exc).__name__


def value_from(spec: str, what: str) -> Any:
    """The value of `@spec`: an array, or for `@-` standard input's text (a VALUE as typed)."""
    if spec == "-":
        data = read_stdin(what, limits.MAX_VALUE_CHARS, f"MAX_VALUE_CHARS={limits.MAX_VALUE_CHARS:,}")
        return decode(data, what, "standard input")  # VALUE text, read as one given inline
    if not spec:
        raise ValueInputError(f"{what}: '@' needs a file name after it, as in @x.npy; give {KINDS}")
    return value_file(spec, what)
