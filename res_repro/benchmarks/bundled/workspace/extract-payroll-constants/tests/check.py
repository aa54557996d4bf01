"""Rubric for the payroll constants refactoring; behaviour is checked by running the code in a copy of /app."""
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rubric import APP, Rubric, app, fixture, read_text, unchanged  # noqa: E402

ALT_CONSTANTS = '''from decimal import Decimal
STANDARD_WEEKLY_HOURS = 37
OVERTIME_MULTIPLIER = Decimal("2")
SOCIAL_SECURITY_RATE = Decimal("0.071")
PENSION_RATE = Decimal("0.104")
'''
CASES = [("18.50", 38), ("20.00", 45), ("31.25", 40), ("12.10", 52.5), ("15.00", 0)]


def run(code, alt_constants=False, fixture_files=()):
    tmp = tempfile.mkdtemp()
    root = os.path.join(tmp, "app")
    shutil.copytree(APP, root, ignore=shutil.ignore_patterns("__pycache__"))
    for f in fixture_files:
        shutil.copy(fixture(f), os.path.join(root, f))
    if alt_constants:
        with open(os.path.join(root, "payroll/constants.py"), "w") as f:
            f.write(ALT_CONSTANTS)
    try:
        done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=20,
                              env={"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONDONTWRITEBYTECODE": "1"})
        print(done.stdout[-600:], done.stderr[-600:])
        return done.returncode == 0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def expected(hours_std, mult, ss, pen):
    """Reference payroll for CASES under the given rates, as Python source for the checks."""
    from decimal import ROUND_HALF_UP, Decimal
    c = Decimal("0.01")
    out = []
    for rate, hours in CASES:
        r, h = Decimal(rate), Decimal(str(hours))
        g = (min(h, hours_std) * r + max(h - hours_std, Decimal(0)) * r * mult).quantize(c, ROUND_HALF_UP)
        s, p = (g * ss).quantize(c, ROUND_HALF_UP), (g * pen).quantize(c, ROUND_HALF_UP)
        out.append((rate, hours, str(g), str(s), str(p), str(g - s - p),
                    f"{ss * 100:.1f}%", f"{pen * 100:.1f}%", str(hours_std)))
    return out


CHECK_CODE = """
import sys
from decimal import Decimal
sys.path.insert(0, ".")
from payroll.gross import gross_pay
from payroll.deductions import social_security, pension, net_pay, employer_social_security
from payroll.report import payslip_lines
for rate, hours, g, s, p, n, ss_label, pen_label, week in {cases!r}:
    gross = gross_pay(rate, hours)
    assert gross == Decimal(g), (rate, hours, gross, g)
    assert social_security(gross) == Decimal(s) == employer_social_security(gross), (gross, s)
    assert pension(gross) == Decimal(p), (gross, p)
    assert net_pay(gross) == Decimal(n)
    lines = payslip_lines("Kim", rate, hours)
    want = ["Employee: Kim", "Hours: %s (standard week: %s h)" % (hours, week), "Gross: " + g,
            "Social security (%s): %s" % (ss_label, s), "Pension (%s): %s" % (pen_label, p), "Net: " + n,
            "Employer social security (%s): %s" % (ss_label, s)]
    assert lines == want, (lines, want)
"""
rubric = Rubric()


def literals(path):
    """Numeric constants and string constants of a module (including f-string parts)."""
    tree = ast.parse(read_text(app(path)))
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and not isinstance(n.value, bool)]


def free_of(path, numbers, patterns):
    for v in literals(path):
        if isinstance(v, int | float) and v in numbers:
            return False
        if isinstance(v, str) and any(re.search(p, v) for p in patterns):
            return False
    return "payroll.constants" in read_text(app(path)) or "from . import constants" in read_text(app(path)) \
        or "from .constants" in read_text(app(path))


@rubric.item("constants_module")
def _():
    return run("""
import sys
from decimal import Decimal
sys.path.insert(0, ".")
from payroll import constants as c
assert type(c.STANDARD_WEEKLY_HOURS) is int and c.STANDARD_WEEKLY_HOURS == 40
for name in ("OVERTIME_MULTIPLIER", "SOCIAL_SECURITY_RATE", "PENSION_RATE"):
    assert isinstance(getattr(c, name), Decimal), name
assert c.OVERTIME_MULTIPLIER == Decimal("1.5") and c.SOCIAL_SECURITY_RATE == Decimal("0.062")
""")


@rubric.item("pension_rate_2025")
def _():
    return run("""
import sys
from decimal import Decimal
sys.path.insert(0, ".")
from payroll import constants
assert constants.PENSION_RATE == Decimal("0.095")
""")


@rubric.item("gross_without_literals")
def _():
    return free_of("payroll/gross.py", {40, 1.5}, [r"^1\.5$", r"^40$"])


@rubric.item("deductions_without_literals")
def _():
    return free_of("payroll/deductions.py", {0.062, 0.093, 0.095}, [r"^0?\.062$", r"^0?\.09[35]$"])


@rubric.item("report_without_literals")
def _():
    return free_of("payroll/report.py", {40, 6.2, 9.3, 9.5}, [r"\b40\b", r"6\.2", r"9\.[35]"])


@rubric.item("behaviour_with_2025_rates")
def _():
    from decimal import Decimal
    return run(CHECK_CODE.format(cases=expected(40, Decimal("1.5"), Decimal("0.062"), Decimal("0.095"))))


@rubric.item("rates_come_from_constants")
def _():
    from decimal import Decimal
    return run(CHECK_CODE.format(cases=expected(37, Decimal("2"), Decimal("0.071"), Decimal("0.104"))), alt_constants=True)


@rubric.item("run_checks_passes")
def _():
    return run("import runpy, sys; sys.argv = ['checks/run_checks.py']; runpy.run_path('checks/run_checks.py', run_name='__main__')",
               fixture_files=["checks/run_checks.py"])


@rubric.item("plan_docs_checks_unchanged")
def _():
    return unchanged("PLAN.md", "docs/rates_2025.md", "checks/run_checks.py")


rubric.run()
