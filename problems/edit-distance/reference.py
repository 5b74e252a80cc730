def edit_distance(a: str, b: str) -> int:
    # Row-by-row Levenshtein DP: row[j] is the distance between the current prefix of a and b[:j].
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        new = [i]
        for j, cb in enumerate(b, 1):
            new.append(min(new[-1] + 1, row[j] + 1, row[j - 1] + (ca != cb)))
        row = new
    return row[-1]
