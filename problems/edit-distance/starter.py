def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance between a and b.

    The least number of single-character insertions, deletions and substitutions (each
    costing 1) that turn a into b. Characters are Python str characters (Unicode code
    points), so '模' or '😀' counts as one character.
    """
    raise NotImplementedError
