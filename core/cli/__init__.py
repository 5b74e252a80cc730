"""The `kata` command line: every command and its terminal output."""
