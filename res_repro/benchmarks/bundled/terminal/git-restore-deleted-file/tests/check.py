"""Check that /app/repo's main gained exactly one commit restoring the last version of config/settings.ini."""
import os
import subprocess
import sys

REPO = "/app/repo"
OLD_MAIN = "7014b34e5373426e81b882960be25119a7738da4"
LAST_BLOB = "1400105b54e77c1966a2c189e4155923890751ca"  # content in the parent of the deleting commit
FIRST_BLOB = "1610570b94c9eb226a7549f4d875c4aaa96387f0"  # an older version (wrong answer)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def git(*args):
    p = subprocess.run(["git", "-c", "safe.directory=*", "-C", REPO, *args],
                       capture_output=True, text=True, timeout=20)
    if p.returncode != 0:
        fail(f"git {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


if not os.path.isdir(os.path.join(REPO, ".git")):
    fail(f"{REPO} is not a git clone")
head = git("rev-parse", "refs/heads/main").strip()
parents = git("rev-list", "--parents", "-n", "1", head).split()[1:]
if parents != [OLD_MAIN]:
    fail(f"main's new commit should have the single parent {OLD_MAIN}, has {parents}")
changes = git("diff", "--name-status", OLD_MAIN, head).strip()
if changes != "A\tconfig/settings.ini":
    fail(f"the commit should only add config/settings.ini, changes: {changes!r}")
blob = git("rev-parse", f"{head}:config/settings.ini").strip()
if blob == FIRST_BLOB:
    fail("restored an older version of config/settings.ini, not the last one")
if blob != LAST_BLOB:
    fail("config/settings.ini does not have the content it had before it was deleted")
message = git("log", "-1", "--format=%B", head).strip()
if message != "Restore config/settings.ini":
    fail(f"commit message is {message!r}")
if git("symbolic-ref", "-q", "HEAD").strip() != "refs/heads/main":
    fail("main is not checked out")
want = git("cat-file", "blob", LAST_BLOB)
path = os.path.join(REPO, "config", "settings.ini")
if not os.path.isfile(path) or open(path).read() != want:
    fail("config/settings.ini in the working tree differs from the restored version")
print("OK")
