"""What a user is told when something cannot be done, and the exit codes every kata command and
batch grading share.

Every error core raises for a user to read is a KataError: its message names the file (and line) and
the fix, and it carries the exit code a command ends with. The exceptions that stay inside the grader
(a worker's message not believed, a run cancelled by a newer one) are not.
"""

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_CANNOT_GRADE = 0, 1, 2


class KataError(Exception):
    """Something the user asked for cannot be done, and the message says why and what to do."""

    exit_code = EXIT_CANNOT_GRADE
