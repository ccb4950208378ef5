"""Spark's event-log codecs, decompressed as streams (a block at a time, never a whole file).

Spark compresses event logs with its own stream formats, named by the file's extension:

- `lz4`: lz4-java's `LZ4BlockOutputStream` — blocks of `LZ4Block`, a token, compressed and
  original lengths and a checksum (little-endian), then a raw LZ4 block (or the bytes as they are);
- `lzf`: Ning's `LZFOutputStream` — chunks of `ZV`, a type, lengths (big-endian), LZF data;
- `snappy`: xerial's `SnappyOutputStream` — a 16-byte header, then chunks of a big-endian length and
  a raw Snappy block;
- `zstd`: standard Zstandard frames (the `zstandard` library's streaming reader).

LZ4 and Snappy blocks are decoded by `cramjam`, Zstandard by `zstandard` (the `eventlogs` extra);
LZF by the small decoder here. Each reader is an `io.RawIOBase`, so `io.BufferedReader` gives lines.

Bounded work (issue 28 item 7): a block is refused before it is decoded when it says it is larger
than :data:`MAX_BLOCK_BYTES` (lz4-java writes blocks of at most 32 MiB, Spark's default is 32 KiB);
and a file's decompressed bytes are capped (``max_bytes`` of :func:`decompressed`: the reader
stops with :class:`DecompressionLimitError` past it), so a small file that inflates to gigabytes
costs a bounded read, not the machine's memory or minutes.
"""

from __future__ import annotations

import io
import struct
from collections.abc import Callable
from typing import IO, Any, cast

from plumbline.eventlogs.errors import EventLogError

CODECS = ("lz4", "lzf", "snappy", "zstd")
_NEEDS = {"lz4": "cramjam", "snappy": "cramjam", "zstd": "zstandard"}


MAX_BLOCK_BYTES = 64 * 1024 * 1024  # a compressed block (or chunk) larger, either way: corrupt


class TruncatedError(EventLogError):
    """The compressed stream ends inside a block (the file was cut short or is still written)."""


class DecompressionLimitError(EventLogError):
    """A file decompresses to more than its cap (a decompression bomb, or a corrupt file)."""


def _block_size(size: int, what: str) -> int:
    """``size``, or :class:`EventLogError` when a block claims more than MAX_BLOCK_BYTES."""
    if size > MAX_BLOCK_BYTES:
        raise EventLogError(
            f"corrupt: a {what} of {size} bytes (at most {MAX_BLOCK_BYTES} are read)"
        )
    return size


class _BlockReader(io.RawIOBase):
    """A raw stream over `next_block()`, which returns decompressed bytes or b"" at the end."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._pending = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            block = self.next_block()
            if not block:
                return 0
            self._pending = memoryview(block)
        size = min(len(buffer), len(self._pending))
        buffer[:size] = self._pending[:size]
        self._pending = self._pending[size:]
        return size

    def next_block(self) -> bytes:
        raise NotImplementedError

    def _exactly(self, size: int, what: str) -> bytes:
        data = self._raw.read(size)
        if len(data) != size:
            raise TruncatedError(f"the file ends inside a {what}")
        return bytes(data)

    def close(self) -> None:
        self._raw.close()
        super().close()


class Lz4BlockReader(_BlockReader):
    """lz4-java's LZ4BlockOutputStream framing."""

    MAGIC = b"LZ4Block"
    _HEADER = struct.Struct("<Biii")  # token, compressed length, original length, checksum

    def next_block(self) -> bytes:
        import cramjam

        while True:
            magic = self._raw.read(len(self.MAGIC))
            if not magic:
                return b""
            if magic != self.MAGIC:
                if len(magic) < len(self.MAGIC) and self.MAGIC.startswith(magic):
                    raise TruncatedError("the file ends inside an LZ4 block header")
                raise EventLogError("corrupt: not an LZ4 block stream (bad block magic)")
            token, compressed, original, _ = self._HEADER.unpack(
                self._exactly(self._HEADER.size, "LZ4 block header")
            )
            if original == 0:  # the end mark of one stream (streams may be concatenated)
                continue
            _block_size(max(original, compressed), "LZ4 block")
            if compressed < 0 or original < 0:
                raise EventLogError("corrupt: an LZ4 block of negative length")
            data = self._exactly(compressed, "LZ4 block")
            if token & 0xF0 == 0x10:  # stored as is
                return data
            return bytes(cramjam.lz4.decompress_block(data, output_len=original))


class SnappyStreamReader(_BlockReader):
    """xerial snappy-java's SnappyOutputStream framing."""

    MAGIC = b"\x82SNAPPY\x00"
    _HEADER_SIZE = 16  # magic, version, compatible version

    def __init__(self, raw: IO[bytes]) -> None:
        super().__init__(raw)
        self._started = False

    def next_block(self) -> bytes:
        import cramjam

        while True:
            head = self._raw.read(4)
            if not head:
                if not self._started:
                    raise EventLogError("an empty Snappy stream (no header)")
                return b""
            if head == self.MAGIC[:4]:  # a stream's header (first, or a concatenated stream)
                rest = self._exactly(self._HEADER_SIZE - 4, "Snappy stream header")
                if rest[:4] != self.MAGIC[4:]:
                    raise EventLogError("corrupt: not a Snappy stream (bad header)")
                self._started = True
                continue
            if not self._started:
                raise EventLogError("corrupt: not a Snappy stream (bad header)")
            if len(head) < 4:
                raise TruncatedError("the file ends inside a Snappy chunk length")
            (length,) = struct.unpack(">i", head)
            if length < 0:
                raise EventLogError("corrupt: a Snappy chunk of negative length")
            data = self._exactly(_block_size(length, "Snappy chunk"), "Snappy chunk")
            _block_size(cramjam.snappy.decompress_raw_len(data), "Snappy chunk")
            return bytes(cramjam.snappy.decompress_raw(data))


class LzfChunkReader(_BlockReader):
    """Ning compress's LZFOutputStream framing (`ZV`, type 0 stored or 1 compressed)."""

    def next_block(self) -> bytes:
        head = self._raw.read(5)
        if not head:
            return b""
        if len(head) < 5:
            raise TruncatedError("the file ends inside an LZF chunk header")
        if head[:2] != b"ZV":
            raise EventLogError("corrupt: not an LZF stream (bad chunk signature)")
        kind, length = head[2], struct.unpack(">H", head[3:5])[0]
        if kind == 0:
            return self._exactly(length, "LZF chunk")
        if kind != 1:
            raise EventLogError(f"corrupt: an LZF chunk of unknown type {kind}")
        (original,) = struct.unpack(">H", self._exactly(2, "LZF chunk header"))
        return lzf_decompress(self._exactly(length, "LZF chunk"), original)


def lzf_decompress(data: bytes, original: int) -> bytes:
    """Decode one LZF block (liblzf's format: literal runs and back references)."""
    out = bytearray()
    position, end = 0, len(data)
    try:
        while position < end:
            control = data[position]
            position += 1
            if control < 32:  # a run of control + 1 literal bytes
                out += data[position : position + control + 1]
                position += control + 1
                continue
            length = control >> 5
            if length == 7:
                length += data[position]
                position += 1
            back = ((control & 0x1F) << 8) + data[position] + 1
            position += 1
            length += 2
            start = len(out) - back
            if start < 0:
                raise EventLogError("a corrupt LZF block (reference before its start)")
            if back >= length:
                out += out[start : start + length]
            else:  # an overlapping copy repeats the last `back` bytes
                for index in range(length):
                    out.append(out[start + index])
    except IndexError:
        raise EventLogError("a corrupt LZF block (ends inside a token)") from None
    if len(out) != original:
        raise EventLogError(f"a corrupt LZF block ({len(out)} bytes, expected {original})")
    return bytes(out)


def _zstd(raw: IO[bytes]) -> IO[bytes]:
    import zstandard

    reader: IO[bytes] = zstandard.ZstdDecompressor().stream_reader(
        raw, read_across_frames=True, closefd=True
    )
    return reader


_READERS: dict[str, Callable[[IO[bytes]], Any]] = {
    "lz4": Lz4BlockReader,
    "lzf": LzfChunkReader,
    "snappy": SnappyStreamReader,
    "zstd": _zstd,
}


def codec_of(name: str) -> str | None:
    """The codec a log file's name says (Spark's rule: the extension after `.inprogress` is
    removed), None for an uncompressed log; raises EventLogError for an unknown codec."""
    name = name.removesuffix(".inprogress")
    stem, dot, extension = name.rpartition(".")
    if not dot or not stem:
        return None
    if extension not in CODECS:
        raise EventLogError(f"unknown event log codec {extension!r} (known: {', '.join(CODECS)})")
    return extension


class _Capped(io.RawIOBase):
    """A raw stream of at most ``limit`` bytes of ``inner``: past them, DecompressionLimitError."""

    def __init__(self, inner: Any, limit: int) -> None:
        self._inner = inner
        self._left = limit
        self._limit = limit

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer)
        size = int(self._inner.readinto(view[: max(1, min(len(view), self._left + 1))]) or 0)
        self._left -= size
        if self._left < 0:
            raise DecompressionLimitError(
                f"decompresses to more than {self._limit} bytes (refused as a decompression bomb)"
            )
        return size

    def close(self) -> None:
        self._inner.close()
        super().close()


def decompressed(
    raw: IO[bytes], codec: str | None, buffer_size: int = 1 << 16, max_bytes: int | None = None
) -> IO[bytes]:
    """A buffered stream of `raw`'s decompressed bytes (closing it closes `raw`); with
    ``max_bytes``, reading past that many decompressed bytes raises DecompressionLimitError."""
    if codec is None:
        return raw
    needs = _NEEDS.get(codec)
    if needs is not None:
        try:
            __import__(needs)
        except ImportError:
            raise EventLogError(
                f"reading {codec} event logs needs the {needs} package "
                "(pip install 'plumbline[eventlogs]')"
            ) from None
    reader = _READERS[codec](raw)
    if max_bytes is not None:
        reader = _Capped(reader, max_bytes)
    return cast(IO[bytes], io.BufferedReader(reader, buffer_size))


class IncrementalDecoder:
    """Decompresses a file that is still being written, a piece at a time: `feed(new bytes)`
    returns what the complete blocks so far hold; a block cut at the end waits for its rest
    (`pending`), so a file can be read on as it grows, from where the last read stopped."""

    def __init__(self, codec: str | None, max_ratio: int | None = None, min_bytes: int = 0) -> None:
        self.codec = codec
        # decompressed bytes at most max(min_bytes, max_ratio x compressed bytes fed), checked
        # as it goes (Zstandard a small piece of input at a time): DecompressionLimitError past it
        self.max_ratio, self.min_bytes = max_ratio, min_bytes
        self._fed = self._out = 0
        self._pending = b""
        self._zstd: Any = None
        self._reader: _BlockReader | None = None
        if codec is not None:
            decompressed(io.BytesIO(), codec)  # the codec's package is there, or say so
            if codec == "zstd":
                self._zstd = _zstd_object()
            else:
                self._reader = _READERS[codec](io.BytesIO())

    @property
    def pending(self) -> int:
        """Bytes read that wait for the rest of their block."""
        return len(self._pending)

    def feed(self, data: bytes) -> bytes:
        """The decompressed bytes of the blocks `data` completes."""
        if self.codec is None:
            return data
        if self._zstd is not None:
            out: list[bytes] = []
            for start in range(0, len(data), _ZSTD_PIECE):  # a bomb's output checked per piece
                out.append(self._counted(data[start : start + _ZSTD_PIECE], self._feed_zstd))
            return b"".join(out)
        return self._counted(data, self._feed_blocks)

    def _counted(self, data: bytes, feed: Callable[[bytes], bytes]) -> bytes:
        self._fed += len(data)
        out = feed(data)
        self._out += len(out)
        if self.max_ratio is not None:
            cap = max(self.min_bytes, self.max_ratio * self._fed)
            if self._out > cap:
                raise DecompressionLimitError(
                    f"decompresses to more than {cap} bytes (refused as a decompression bomb)"
                )
        return out

    def _feed_blocks(self, data: bytes) -> bytes:
        buffer = self._pending + data
        if not buffer or (self.codec == "snappy" and len(buffer) < 16 and not self._started()):
            self._pending = buffer
            return b""
        stream = io.BytesIO(buffer)
        assert self._reader is not None
        self._reader._raw = stream
        blocks: list[bytes] = []
        used = 0
        while True:
            try:
                block = self._reader.next_block()
            except TruncatedError:
                break
            used = stream.tell()
            if not block:
                break
            blocks.append(block)
        self._pending = buffer[used:]
        return b"".join(blocks)

    def _started(self) -> bool:
        return bool(getattr(self._reader, "_started", True))

    def _feed_zstd(self, data: bytes) -> bytes:
        out: list[bytes] = []
        while data:
            out.append(self._zstd.decompress(data))
            if not self._zstd.eof:
                break
            data = self._zstd.unused_data  # a next frame follows
            self._zstd = _zstd_object()
        return b"".join(out)


_ZSTD_PIECE = 512  # input fed to Zstandard at once by IncrementalDecoder (at most ~16 MiB out)


def _zstd_object() -> Any:
    import zstandard

    return zstandard.ZstdDecompressor().decompressobj()
