"""Check the hotfix branch, its single commit, the new tag, and that main and old tags did not move."""
import os
import subprocess
import sys

REPO = "/app/repo"
MAIN = "d7308afd38d19f2766e7f66bc727962071991b96"
V120 = "ad095a87ccc313ea62ccac1a90e3ea5e3bae4aa1"


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def git(*args, check=True):
    p = subprocess.run(["git", "-c", "safe.directory=*", "-C", REPO, *args],
                       capture_output=True, text=True, timeout=20)
    if check and p.returncode != 0:
        fail(f"git {' '.join(args)}: {p.stderr.strip()}")
    return p.stdout


if not os.path.isdir(os.path.join(REPO, ".git")):
    fail(f"{REPO} is not a git clone")
if git("rev-parse", "--verify", "-q", "refs/heads/main").strip() != MAIN:
    fail("main has moved")
if git("rev-parse", "--verify", "-q", "v1.2.0^{commit}").strip() != V120:
    fail("tag v1.2.0 has moved")
tip = git("rev-parse", "--verify", "-q", "refs/heads/hotfix/1.2.1", check=False).strip()
if not tip:
    fail("branch hotfix/1.2.1 does not exist")
parents = git("rev-list", "--parents", "-n", "1", tip).split()[1:]
if parents != [V120]:
    fail(f"hotfix/1.2.1 should be one commit on top of v1.2.0, its tip's parents are {parents}")
changed = sorted(git("diff", "--name-only", V120, tip).split())
if changed != ["httpclient/__init__.py", "httpclient/config.py"]:
    fail(f"files changed: {changed}")
for path, old, new in [("httpclient/config.py", "DEFAULT_TIMEOUT = 30", "DEFAULT_TIMEOUT = 60"),
                       ("httpclient/__init__.py", 'VERSION = "1.2.0"', 'VERSION = "1.2.1"')]:
    before = git("show", f"{V120}:{path}")
    assert before.count(old) == 1
    if git("show", f"{tip}:{path}") != before.replace(old, new):
        fail(f"{path} does not hold exactly the requested change")
author = git("log", "-1", "--format=%an <%ae>", tip).strip()
if author != "Release Bot <release-bot@example.com>":
    fail(f"author is {author!r}")
message = git("log", "-1", "--format=%B", tip).strip()
if message != "Raise default timeout to 60s":
    fail(f"commit message is {message!r}")
tagged = git("rev-parse", "--verify", "-q", "refs/tags/v1.2.1^{commit}", check=False).strip()
if tagged != tip:
    fail("tag v1.2.1 is missing or does not point at the hotfix commit")
print("OK")
