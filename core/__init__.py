"""Domain: problems, matching, static checks, sandboxed execution, comparison, results, CLI.

Imports no LSP library."""
