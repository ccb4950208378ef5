"""Spark's event-log stream formats, read a block at a time (no Spark needed: the streams are
framed here as Spark's codecs frame them, with the real block compressors)."""

from __future__ import annotations

import io
import struct

import cramjam
import pytest
import zstandard

from plumbline.eventlogs.codecs import (
    IncrementalDecoder,
    codec_of,
    decompressed,
    lzf_decompress,
)
from plumbline.eventlogs.errors import EventLogError

TEXT = b"".join(b'{"Event":"SparkListenerLogStart","n":%d}\n' % i for i in range(2000))


def lz4_framed(data: bytes, block: int = 4096) -> bytes:
    out = b""
    for start in range(0, len(data), block):
        chunk = data[start : start + block]
        packed = bytes(cramjam.lz4.compress_block(chunk, store_size=False))
        out += b"LZ4Block" + struct.pack("<Biii", 0x20, len(packed), len(chunk), 0) + packed
    return out + b"LZ4Block" + struct.pack("<Biii", 0x10, 0, 0, 0)


def snappy_framed(data: bytes, block: int = 4096) -> bytes:
    out = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
    for start in range(0, len(data), block):
        packed = bytes(cramjam.snappy.compress_raw(data[start : start + block]))
        out += struct.pack(">i", len(packed)) + packed
    return out


def lzf_framed(data: bytes, block: int = 4096) -> bytes:
    # stored chunks (type 0): the LZF decoder itself is checked on a hand-made block below
    return b"".join(
        b"ZV\x00" + struct.pack(">H", len(data[s : s + block])) + data[s : s + block]
        for s in range(0, len(data), block)
    )


FRAMES = {
    "lz4": lz4_framed,
    "snappy": snappy_framed,
    "lzf": lzf_framed,
    "zstd": lambda data: (
        zstandard.ZstdCompressor().compress(data[:5000])
        + zstandard.ZstdCompressor().compress(data[5000:])
    ),
}


@pytest.mark.parametrize("codec", sorted(FRAMES))
def test_each_codec_streams_back_the_lines(codec: str) -> None:
    stream = decompressed(io.BytesIO(FRAMES[codec](TEXT)), codec, buffer_size=1024)
    assert b"".join(stream) == TEXT


@pytest.mark.parametrize("codec", ["lz4", "snappy", "lzf"])
def test_a_cut_stream_is_truncated(codec: str) -> None:
    framed = FRAMES[codec](TEXT)
    with pytest.raises(EventLogError, match="ends inside"):
        b"".join(decompressed(io.BytesIO(framed[: len(framed) // 2 + 3]), codec))


def test_the_lzf_decoder_copies_back_references() -> None:
    # three literals, then 6 bytes copied from 3 back (an overlapping copy)
    assert lzf_decompress(b"\x02abc\x80\x02", 9) == b"abcabcabc"
    with pytest.raises(EventLogError, match="corrupt"):
        lzf_decompress(b"\x80\x05", 2)


@pytest.mark.parametrize(
    ("name", "codec"),
    [
        ("local-1700000000000", None),
        ("app-20240101000000-0001.zstd", "zstd"),
        ("local-1.lz4.inprogress", "lz4"),
        ("events_1_local-1.snappy", "snappy"),
        ("local-1.inprogress", None),
    ],
)
def test_the_codec_comes_from_the_file_name(name: str, codec: str | None) -> None:
    assert codec_of(name) == codec


def test_an_unknown_codec_is_named() -> None:
    with pytest.raises(EventLogError, match="unknown event log codec 'gz'"):
        codec_of("local-1.gz")


@pytest.mark.parametrize("codec", [*sorted(FRAMES), None])
@pytest.mark.parametrize("piece", [1, 7, 1000, 100_000])
def test_a_growing_file_is_decoded_piece_by_piece(codec: str | None, piece: int) -> None:
    """`--follow` reads a file as it is written: any cut between two reads waits for its rest."""
    framed = FRAMES[codec](TEXT) if codec else TEXT
    decoder = IncrementalDecoder(codec)
    out = b"".join(decoder.feed(framed[s : s + piece]) for s in range(0, len(framed), piece))
    assert out == TEXT and decoder.pending == 0
    cut = IncrementalDecoder(codec)
    if codec in ("lz4", "snappy", "lzf"):  # a block cut short is held back, not half decoded
        got = cut.feed(framed[: len(framed) // 2 + 3])
        assert TEXT.startswith(got) and len(got) < len(TEXT) and cut.pending > 0
