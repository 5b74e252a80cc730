"""`kata serve` / `python -m infrakata.server [--tcp HOST:PORT]`: the language server on stdio or TCP."""

from __future__ import annotations

import argparse
import logging
import sys


def tcp_address(value: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:2087` for IPv6) -> (host, port); ValueError when it is not one."""
    host, colon, port = value.rpartition(":")
    if not colon or not host or not port.isdigit():
        raise ValueError(f"--tcp wants HOST:PORT (e.g. 127.0.0.1:2087), got {value!r}")
    return host.strip("[]"), int(port)


def serve(tcp: str | None = None) -> None:
    """Serve LSP on stdio, or on TCP at `HOST:PORT`, until the client says exit."""
    from .app import create_server

    server = create_server()
    try:
        if tcp is None:
            server.start_io()
        else:
            server.start_tcp(*tcp_address(tcp))
    finally:
        server.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kata serve", description="the infrakata language server (LSP)")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="what to log on stderr (default: WARNING)")
    args = parser.parse_args(argv)
    if args.tcp is not None:
        try:
            tcp_address(args.tcp)
        except ValueError as error:
            parser.error(str(error))
    # stdout carries the protocol: logs go to stderr, which editors show as the server's log.
    logging.basicConfig(stream=sys.stderr, level=args.log_level,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    serve(args.tcp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
