"""Triton kernels: our own solutions and shared Triton helpers. Imports nothing from core."""
