"""Mutants of a problem's reference (`kata check-problems --mutants`): a problem's cases are judged,
as a test suite is, by the wrong versions of the reference they reject.

make.py   the operators: a module -> its mutants, each labelled with where and what changed
check.py  each mutant graded through the real grading path; survivors, and the declared equivalents
"""
