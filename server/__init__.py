"""The pygls language server: a thin protocol layer over infrakata.core."""
