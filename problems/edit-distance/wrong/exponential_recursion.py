# expect: time_limit_exceeded
# why: the textbook recursion without memoisation makes three calls per step, about 3 ** (m + n)
#      of them; the short cases pass, the long sentences never finish within the time limit
def edit_distance(a, b):
    def dist(i, j):
        if i == 0:
            return j
        if j == 0:
            return i
        return min(dist(i - 1, j) + 1, dist(i, j - 1) + 1, dist(i - 1, j - 1) + (a[i - 1] != b[j - 1]))

    return dist(len(a), len(b))
