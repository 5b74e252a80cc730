"""Where the product's own folders are, in a checkout and in an install alike: the bundled
catalogue and the bundled examples (problems/ and examples/ of a checkout, infrakata/problems and
infrakata/examples of an install)."""

from pathlib import Path

PRODUCT = Path(__file__).resolve().parents[1]
BUNDLED = PRODUCT / "problems"
# The project's solutions: graded like any file, never recorded as the learner's progress.
EXAMPLES = PRODUCT / "examples"
