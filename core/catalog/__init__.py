"""The problem model, the formats problems are written in, matching a file to its problem, statements."""
