"""Sandboxed, warm execution of untrusted solutions."""
