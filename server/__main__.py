"""`kata serve` / `python -m infrakata.server [--tcp HOST:PORT]`: the language server on stdio or TCP."""

from __future__ import annotations

import argparse
import logging
import sys


def serve(tcp: str | None = None) -> None:
    """Serve LSP on stdio, or on TCP at `HOST:PORT`, until the client says exit."""
    from .server import create_server

    server = create_server()
    try:
        if tcp is None:
            server.start_io()
        else:
            host, _, port = tcp.rpartition(":")
            server.start_tcp(host or "127.0.0.1", int(port))
    finally:
        server.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kata serve", description="the infrakata language server (LSP)")
    parser.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    parser.add_argument("--log-level", default="WARNING", choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                        help="what to log on stderr (default: WARNING)")
    args = parser.parse_args(argv)
    if args.tcp is not None and not args.tcp.rpartition(":")[2].isdigit():
        parser.error(f"--tcp wants HOST:PORT (e.g. 127.0.0.1:2087), got {args.tcp!r}")
    # stdout carries the protocol: logs go to stderr, which editors show as the server's log.
    logging.basicConfig(stream=sys.stderr, level=args.log_level, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    serve(args.tcp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
