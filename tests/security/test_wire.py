"""Hostile bytes on the wire: whatever a worker sends, the grader gives a verdict (never a traceback),
holds no more than the run's reply limit, and shows only text that is safe on a terminal, in JSON,
in JUnit XML and in the editor."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import pytest
import torch
from infrakata.core.sandbox.pool import read_reply
from infrakata.core.sandbox.protocol import ProtocolError, Reply, clean_text, reply_to_wire
from infrakata.core.sandbox.wire import (
    FRAME_LENGTH,
    MAX_ITEMS,
    FrameError,
    FrameReader,
    UnsafeValue,
    decode_untrusted,
    encode_untrusted,
)

from .conftest import FIXTURES, attempt, solution

# Finds the pipe its replies go through (any descriptor that is a FIFO open for writing) and writes raw bytes.
RAW = """
    import stat, struct
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                os.write(fd, PAYLOAD)
        except OSError:
            pass
    time.sleep(2)
"""


@pytest.mark.parametrize("payload,words", [
    ("struct.pack('<Q', 1 << 62)", "more than the"),  # a header beyond any limit
    ("struct.pack('<Q', 100) + b'x' * 100", "could not be read"),  # a frame of garbage
    ("struct.pack('<Q', 200 << 20) + b'x' * (8 << 20)", "time limit"),  # an endless frame: never completed
])
def test_a_forged_frame_is_a_crash_or_a_timeout_never_a_traceback(runner, probe, payload, words):
    report, message, _ = attempt(runner, probe, RAW, prelude=f"import struct\nPAYLOAD = {payload}")
    assert report.verdict in ("crashed", "time_limit_exceeded"), message
    assert words in message, message


def test_the_grader_holds_no_more_than_the_reply_limit(runner, probe):
    """An endless frame announced within the limit grows the grader's buffer only up to that limit."""
    import resource

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    attempt(runner, probe, RAW.replace("time.sleep(2)", "while True:\n        pass"),
            prelude="import struct\nPAYLOAD = struct.pack('<Q', 250 << 20) + b'x' * (64 << 20)")
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < 300, grown_mib


@pytest.mark.parametrize("returned,words", [
    ("torch.empty(3, device='meta')", "not a dense CPU tensor"),
    ("torch.ones(4).to_sparse()", "return a dense tensor"),
    ("torch.ones(2, 2).as_strided((2, 2), (0, 1))", None),  # an overlapping view: a plain tensor, compared
    ("[" * 40 + "]" * 40, "nesting deeper than 32 levels"),
    ("[None] * 1_000_001", "more than 1,000,000 values"),
])
def test_returned_tensors_are_checked_at_the_boundary(runner, probe, returned, words):
    source = solution("").replace("return x * factor", f"return {returned}").replace("import os,", "import torch, os,")
    report = runner.run(probe, source, "/tmp/attack.py")
    assert report.verdict in ("runtime_error", "wrong_answer"), report.cases[0].message
    if words:
        assert words in report.cases[0].message


def test_an_int_of_400_digits_is_compared_exactly(runner, probe):
    source = solution("").replace("return x * factor", "return 10 ** 400 + 1")
    report = runner.run(probe, source, "/tmp/attack.py")
    assert report.verdict == "wrong_answer"
    assert "expected a tensor" in report.cases[0].message and "int" in report.cases[0].message


def test_text_from_a_worker_is_safe_everywhere(tmp_path):
    """NUL, ESC, a lone surrogate and a bidirectional override, in a message and in printed output: the
    JSONL and the JUnit parse, and the terminal shows them escaped."""
    attack = tmp_path / "scale.py"
    attack.write_text("# kata: sandbox-probe\n" + solution(
        "print('\\x1b[2K\\rACCEPTED \\x00 \\u202e')\nraise ValueError('\\x1b[31m\\ud800\\x00 all good')"))
    out, junit = tmp_path / "results.jsonl", tmp_path / "junit.xml"
    done = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "--problems", str(FIXTURES), "grade",
                           str(attack), "--out", str(out), "--junit", str(junit)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1, done.stderr
    row = json.loads(out.read_text())
    ET.parse(junit)
    text = row["output"] + row["cases"][0]["message"]
    assert "\x1b" not in text and "\x00" not in text and "\u202e" not in text and "\ud800" not in text
    assert "\\x1b[2K" in row["output"] and "\\u202e" in row["output"]
    shown = subprocess.run([sys.executable, "-m", "infrakata.core.cli", "--problems", str(FIXTURES), "run",
                            str(attack)], capture_output=True, text=True, timeout=120)
    assert "\x1b[31m" not in shown.stdout and "\\x1b[31m" in shown.stdout


def test_clean_text_escapes_what_a_terminal_obeys():
    assert clean_text("a\x1b[2Jb\x00c\u202ed\ud800e\nf\tg") == "a\\x1b[2Jb\\x00c\\u202ed?e\nf\tg"
    assert clean_text("x" * 50, limit=10).startswith("x" * 10 + "... [40 more characters]")


# -- fuzz -------------------------------------------------------------------------------------------

def _valid_frame() -> bytes:
    reply = Reply("ok", {"out": torch.arange(6.0).reshape(2, 3), "n": 3, "s": "text"}, {}, None, 1.5, seq=1)
    return encode_untrusted(reply_to_wire(reply))


def _mutants(rng: random.Random, frame: bytes) -> list[bytes]:
    found = [frame[:rng.randrange(len(frame))] for _ in range(40)]  # truncated
    for _ in range(120):  # bytes flipped
        data = bytearray(frame)
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        found.append(bytes(data))
    found += [rng.randbytes(rng.randint(0, 4096)) for _ in range(60)]  # noise
    return found


def _assert_admitted(value: object, depth: int = 0) -> None:
    """Plain data, text safe to show, tensors plain, dense and on the CPU in storages of their own."""
    assert depth <= 40
    if isinstance(value, (list, tuple)):
        for item in value:
            _assert_admitted(item, depth + 1)
    elif isinstance(value, dict):
        for key, item in value.items():
            _assert_admitted(key, depth + 1)
            _assert_admitted(item, depth + 1)
    elif isinstance(value, str):
        assert clean_text(value) == value
    elif isinstance(value, torch.Tensor):
        assert type(value) is torch.Tensor and value.layout == torch.strided and value.device.type == "cpu"
        assert value.is_contiguous() and value.untyped_storage().nbytes() == value.numel() * value.element_size()
    else:
        assert value is None or type(value) in (bool, int, float, bytes), type(value)


def test_fuzzed_replies_are_read_or_refused_never_anything_else():
    """Truncated, corrupted and random frames: each is a Reply of admitted plain data, a ProtocolError, or
    an UnsafeValue. Nothing else escapes, nothing hangs."""
    rng = random.Random(14)
    frame = _valid_frame()
    assert read_reply(frame).seq == 1
    started = time.monotonic()
    outcomes = {"read": 0, "refused": 0}
    for data in _mutants(rng, frame):
        try:
            reply = read_reply(data)
        except (ProtocolError, UnsafeValue):
            outcomes["refused"] += 1
            continue
        _assert_admitted(reply.value)
        _assert_admitted(reply.state)
        outcomes["read"] += 1
    assert outcomes["refused"] > 100 and time.monotonic() - started < 60


def test_frames_are_cut_and_bounded_as_announced():
    read, write = os.pipe()
    reader = FrameReader(read, limit=1000)
    payloads = [b"a" * 10, b"", b"b" * 1000]
    os.write(write, b"".join(FRAME_LENGTH.pack(len(p)) + p for p in payloads) + FRAME_LENGTH.pack(1001))
    os.close(write)
    got = []
    while len(got) < 3:
        frame = reader.pop()
        if frame is None:
            assert reader.feed()
        else:
            got.append(frame)
    assert got == payloads
    with pytest.raises(FrameError, match="more than the 1,000"):
        reader.pop()  # the announced size is refused before any of the frame is waited for
    os.close(read)


def test_a_reply_is_admitted_as_it_is_read():
    """Text made safe to show, keys too; a value nested past MAX_DEPTH levels, or of more than MAX_ITEMS
    items, refused before it is built."""
    sent = {"a": [1, 2.5, "x\x1b", None, (True, b"b")], "\u202ekey": "\ud800"}
    assert decode_untrusted(encode_untrusted(sent)) == {"a": [1, 2.5, "x\\x1b", None, (True, b"b")],
                                                        "\\u202ekey": "?"}
    deep: list = []
    for _ in range(40):
        deep = [deep]
    with pytest.raises(UnsafeValue, match="deeper"):
        read_reply(encode_untrusted(reply_to_wire(Reply("ok", deep, {}, None, 1.0, seq=1))))
    flood = encode_untrusted(reply_to_wire(Reply("ok", [None] * (MAX_ITEMS + 1), {}, None, 1.0, seq=1)))
    with pytest.raises(UnsafeValue, match="more than 1,000,000 values"):
        read_reply(flood)


def test_what_a_worker_sends_arrives_as_it_was_sent():
    """The wire format carries every kind of plain value exactly: the grader compares what was returned."""
    from infrakata.core.sandbox.wire import WIRE_DTYPES, decode_untrusted

    tensors = [torch.arange(6).reshape(2, 3).to(getattr(torch, name)) for name in WIRE_DTYPES]
    sent = {"ints": [0, -1, 2**63 - 1, -2**63, 2**63, -(10**400)], "floats": [1.5, -0.0, float("inf")],
            "text": ["plain", "x\u00e9y\U0001f600", ""], "bytes": b"\x00\xff", 7: (None, True, False, ()),
            # sequences of one kind of number cross packed; mixed ones and ints past 64 bits item by item
            "packed": [[0.1] * 5, (1, -2, 3), [True, False, True], (1.5, 2.5)], "mixed": [[1, 2.0], [1, 2**64]],
            "tensors": tensors + [torch.zeros(0, 3), torch.tensor(2.5), torch.ones(4, 4).t()[1:, :2]]}
    received = decode_untrusted(encode_untrusted(sent))
    plain = {k: v for k, v in sent.items() if k != "tensors"}
    assert {k: v for k, v in received.items() if k != "tensors"} == plain
    assert repr({k: v for k, v in received.items() if k != "tensors"}) == repr(plain)  # types too: 1 is not 1.0
    for got, want in zip(received["tensors"], sent["tensors"], strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        _assert_admitted(got)
        assert torch.equal(got.reshape(-1).contiguous().view(torch.uint8),  # bit for bit, float8 included
                           want.reshape(-1).contiguous().view(torch.uint8))


def test_what_the_grader_sends_arrives_as_it_was_sent():
    """A case's arguments cross to the worker with their tensors' storages shared as they were (a view is
    still a view of its base, and a write through one shows in the other), their dtypes, unsigned ones too,
    and what torch's own reduction carries (a Parameter, requires_grad, a tensor's own attributes)."""
    from infrakata.core.sandbox.wire import decode_trusted, encode_trusted

    base = torch.arange(12.0).reshape(3, 4)
    tagged = torch.ones(2)
    tagged.note = "kept"
    sent = [base, base[1:, ::2], base.t(), torch.nn.Parameter(torch.ones(2)), torch.ones(3, requires_grad=True),
            torch.tensor([1, 2, 60000], dtype=torch.int32).to(torch.uint16), torch.empty(0, 5),
            torch.ones(4).half()[1:], tagged, {"plain": [1, 2.5, "x"] * 3}]
    got = decode_trusted(encode_trusted(sent))
    assert [(g.dtype, g.shape, g.stride(), g.storage_offset()) for g in got[:9]] == \
        [(s.dtype, s.shape, s.stride(), s.storage_offset()) for s in sent[:9]]
    assert all(torch.equal(g.detach().to(torch.int64), s.detach().to(torch.int64))
               for g, s in zip(got[:9], sent[:9], strict=True))
    got[1][0, 0] = -1.0  # base[1, 0], through the view
    assert got[0][1, 0] == -1.0 and got[2][0, 1] == -1.0
    assert type(got[3]) is torch.nn.Parameter and got[4].requires_grad and got[8].note == "kept"
    assert got[9] == sent[9]


@pytest.mark.parametrize("message,words", [
    (b"x\x01\x01" + (4).to_bytes(8, "little", signed=True) + (1 << 40).to_bytes(8, "little"), "past the message"),
    (b"x\x01\x01" + (4).to_bytes(8, "little", signed=True) + (8).to_bytes(8, "little") + b"\x00" * 8, "in 8 bytes"),
    (b"x\x63\x01" + (1).to_bytes(8, "little"), "dtype code 99"),
    (b"l" + (1 << 60).to_bytes(8, "little"), "past the message"),
    (b"d\x01" + b"\x00" * 7 + b"l" + b"\x00" * 8 + b"N", "dict key"),
    (b"NN", "1 bytes after"),
    (b"?", "unknown tag"),
    (b"l\x01" + b"\x00" * 7 + b"s" + (1 << 62).to_bytes(8, "little"), "past the message"),
])
def test_a_malformed_message_is_refused_at_once(message, words):
    from infrakata.core.sandbox.wire import decode_untrusted

    started = time.monotonic()
    with pytest.raises(ValueError, match=words):
        decode_untrusted(message)
    assert time.monotonic() - started < 1


def test_nesting_past_the_limit_is_refused_not_a_recursion_error():
    from infrakata.core.sandbox.wire import decode_untrusted

    with pytest.raises(ValueError, match="deeper"):
        decode_untrusted((b"l\x01" + b"\x00" * 7) * 100_000 + b"N")
