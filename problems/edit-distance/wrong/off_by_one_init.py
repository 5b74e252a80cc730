# expect: wrong_answer
# why: starts row i of the table at i - 1 instead of i, so turning a prefix of length i into the
#      empty string costs one deletion too few ("abc" -> "" gives 2)
def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        new = [i - 1]
        for j, cb in enumerate(b, 1):
            new.append(min(new[-1] + 1, row[j] + 1, row[j - 1] + (ca != cb)))
        row = new
    return row[-1]
