"""Run the original checks and the hidden checks against the agent's /app/invoice.py."""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

if not os.path.isfile("/app/invoice.py"):
    print("FAIL: /app/invoice.py is missing")
    sys.exit(1)
work = tempfile.mkdtemp()
shutil.copy("/app/invoice.py", os.path.join(work, "invoice.py"))
for name in ("test_invoice.py", "test_hidden.py"):
    shutil.copy(os.path.join(HERE, name), os.path.join(work, name))
proc = subprocess.run(
    [sys.executable, "-m", "unittest", "-v", "test_invoice", "test_hidden"],
    cwd=work, capture_output=True, text=True, timeout=40,
)
print(proc.stdout[-4000:], proc.stderr[-4000:])
sys.exit(0 if proc.returncode == 0 else 1)
