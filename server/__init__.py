"""The pygls language server: a thin protocol layer over infrakata.core."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("infrakata")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0.0.0"
