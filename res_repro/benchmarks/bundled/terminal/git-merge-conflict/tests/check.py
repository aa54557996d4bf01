"""Check the merge commit on main: parents, no conflict markers, merged behaviour, changelog, tests."""
import os
import shutil
import subprocess
import sys
import tarfile
import io
import tempfile

REPO = "/app/repo"
OLD_MAIN = "076d19b33c402b6606fb63ac6d9e8d59c8fa2a71"
FEATURE = "54797d3cfaf45aebabc89c70b79a67725cf2ca29"
HERE = os.path.dirname(os.path.abspath(__file__))


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def git(*args, binary=False):
    p = subprocess.run(["git", "-c", "safe.directory=*", "-C", REPO, *args],
                       capture_output=True, timeout=20)
    if p.returncode != 0:
        fail(f"git {' '.join(args)}: {p.stderr.decode(errors='replace').strip()}")
    return p.stdout if binary else p.stdout.decode()


if not os.path.isdir(os.path.join(REPO, ".git")):
    fail(f"{REPO} is not a git clone")
tip = git("rev-parse", "refs/heads/main").strip()
parents = git("rev-list", "--parents", "-n", "1", tip).split()[1:]
if parents != [OLD_MAIN, FEATURE]:
    fail(f"main's tip should be a merge of {OLD_MAIN} and {FEATURE}; its parents are {parents}")

work = tempfile.mkdtemp()
with tarfile.open(fileobj=io.BytesIO(git("archive", tip, binary=True))) as tar:
    tar.extractall(work)
for dirpath, _, filenames in os.walk(work):
    for name in filenames:
        with open(os.path.join(dirpath, name), "rb") as f:
            for line in f:
                if line.startswith((b"<<<<<<<", b">>>>>>>", b"=======")):
                    fail(f"conflict marker left in {os.path.relpath(os.path.join(dirpath, name), work)}")

for needed in ("MAINTAINERS", "tests/test_discount.py", "tests/test_rounding.py", "tests/test_basic.py"):
    if not os.path.isfile(os.path.join(work, needed)):
        fail(f"{needed} is missing from the merge")

log = open(os.path.join(work, "CHANGELOG.md")).read()
head, sep, rest = log.partition("## Unreleased\n")
unreleased, sep2, released = rest.partition("## 0.1.0\n")
if head != "# Changelog\n\n" or not sep or not sep2 or released != "- First release.\n":
    fail("CHANGELOG.md structure changed")
entries = sorted(l for l in unreleased.splitlines() if l.strip())
if entries != ["- Prices are rounded half-up to whole cents.", "- final_price() accepts a fractional discount."]:
    fail(f"Unreleased entries are {entries}")

# the original tests of both branches, from pristine copies, plus behaviour checks
for name in os.listdir(os.path.join(HERE, "repo_tests")):
    shutil.copy(os.path.join(HERE, "repo_tests", name), os.path.join(work, "tests", name))
with open(os.path.join(work, "tests", "__init__.py"), "a"):
    pass
with open(os.path.join(work, "tests", "test_zz_merged.py"), "w") as f:
    f.write('''import unittest
from decimal import Decimal

from pricing import final_price


class MergedTest(unittest.TestCase):
    def test_decimal_with_discount(self):
        self.assertEqual(final_price(Decimal("2.075"), discount=Decimal("0.5")), Decimal("1.25"))
        self.assertIsInstance(final_price(10, discount=0.25), Decimal)

    def test_rounds_once_at_the_end(self):
        self.assertEqual(final_price(Decimal("1.0437"), discount=Decimal("0.5")), Decimal("0.63"))

    def test_float_discount(self):
        self.assertEqual(final_price(10, discount=0.1), Decimal("10.80"))
        self.assertEqual(str(final_price(10, discount=0.1)), "10.80")

    def test_float_amount_converted_like_main(self):
        self.assertEqual(final_price(2.075, discount=0.5), Decimal("1.25"))

    def test_defaults(self):
        self.assertEqual(final_price(100), Decimal("120.00"))
        self.assertEqual(final_price(Decimal("1.0375")), Decimal("1.25"))

    def test_bad_discounts(self):
        for bad in (1, 1.5, -0.01, Decimal("1")):
            with self.assertRaises(ValueError):
                final_price(10, discount=bad)
''')
proc = subprocess.run([sys.executable, "-m", "unittest", "discover", "-s", "tests", "-t", "."],
                      cwd=work, capture_output=True, text=True, timeout=30)
if proc.returncode != 0:
    print(proc.stderr[-3000:])
    fail("tests fail on the merge result")
print("OK")
