"""Grading a solution: the path from a file to a report, static checks, the runner, the kinds' run
side, comparison and results."""
