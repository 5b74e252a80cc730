# expect: wrong_answer
# why: compares the strings position by position (Hamming distance plus the length difference);
#      right for the lab's equal-length outputs and even for kitten -> sitting, but one deletion
#      at the front shifts every later character ("abcdef" -> "bcdef" gives 6, not 1)
def edit_distance(a, b):
    return sum(x != y for x, y in zip(a, b)) + abs(len(a) - len(b))
