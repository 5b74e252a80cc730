"""The maintainers' checks of the catalogue: every problem's files, and its reference's mutants."""
