"""Batch grading: many submissions in one process or on Ray, one signed JSON line each."""
