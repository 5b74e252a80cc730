"""The learner's progress: attempts, bests and hints in one SQLite store, and the learning path."""
