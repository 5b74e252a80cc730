# expect: wrong_answer
# why: charges 2 for a substitution (a deletion plus an insertion, the "indel" distance), so
#      ABCDEG -> ABCDEF gives 2 instead of 1
def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        new = [i]
        for j, cb in enumerate(b, 1):
            new.append(min(new[-1] + 1, row[j] + 1, row[j - 1] + 2 * (ca != cb)))
        row = new
    return row[-1]
