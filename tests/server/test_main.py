"""`python -m infrakata.server` (what `kata serve` runs): TCP as well as stdio, and a clear usage error."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys


async def _request(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, message: dict) -> None:
    body = json.dumps(message).encode()
    writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    await writer.drain()


async def _response(reader: asyncio.StreamReader) -> dict:
    while True:
        header = await reader.readuntil(b"\r\n\r\n")
        length = int(re.search(rb"Content-Length: (\d+)", header).group(1))
        message = json.loads(await reader.readexactly(length))
        if "id" in message and "method" not in message:
            return message


async def test_serves_lsp_over_tcp():
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "infrakata.server", "--tcp", "127.0.0.1:0", "--log-level", "INFO",
        stderr=asyncio.subprocess.PIPE)
    try:
        while not (match := re.search(rb"Serving on \('127.0.0.1', (\d+)\)", line := await asyncio.wait_for(
                server.stderr.readline(), 60))):
            assert line, "the server ended before serving"  # b"": its stderr closed
        reader, writer = await asyncio.open_connection("127.0.0.1", int(match.group(1)))
        await _request(reader, writer, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                                        "params": {"processId": None, "rootUri": None, "capabilities": {}}})
        result = (await _response(reader))["result"]
        assert result["serverInfo"]["name"] == "infrakata"
        assert "kata.run" in result["capabilities"]["executeCommandProvider"]["commands"]
        await _request(reader, writer, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
        assert (await _response(reader))["result"] is None
        await _request(reader, writer, {"jsonrpc": "2.0", "method": "exit"})
        writer.close()
    finally:
        if server.returncode is None:
            server.kill()
        await asyncio.wait_for(server.wait(), 10)


def test_a_bad_tcp_address_is_a_usage_error():
    done = subprocess.run([sys.executable, "-m", "infrakata.server", "--tcp", "2087"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 2
    assert "--tcp wants HOST:PORT (e.g. 127.0.0.1:2087), got '2087'" in done.stderr
