"""The exit codes every kata command and batch grading share."""

EXIT_ACCEPTED, EXIT_REJECTED, EXIT_CANNOT_GRADE = 0, 1, 2
