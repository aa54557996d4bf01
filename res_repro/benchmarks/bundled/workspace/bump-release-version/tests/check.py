"""Rubric for the tidewave 2.4.0 release commit: each place the version is recorded is checked on its own."""
import os
import re
import sys
import tomllib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from miniyaml import parse_yaml  # noqa: E402
from rubric import Rubric, app, fixture, read_text, unchanged  # noqa: E402

OLD, NEW, DATE = "2.3.1", "2.4.0", "2024-11-18"
rubric = Rubric()


def same_except(path, old_line, new_line):
    """The file equals the original with exactly that one line replaced."""
    want = read_text(fixture(path)).splitlines()
    assert want.count(old_line) == 1
    want[want.index(old_line)] = new_line
    return [l.rstrip() for l in read_text(app(path)).splitlines()] == want


def assignments(path):
    return dict(re.findall(r'(?m)^(\w+)\s*=\s*"([^"]*)"\s*$', read_text(app(path))))


@rubric.item("pyproject_version")
def _():
    data = tomllib.loads(read_text(app("pyproject.toml")))
    orig = tomllib.loads(read_text(fixture("pyproject.toml")))
    orig["project"]["version"] = NEW
    return data == orig


@rubric.item("package_version")
def _():
    return assignments("src/tidewave/__init__.py").get("__version__") == NEW


@rubric.item("docs_release_and_version")
def _():
    a = assignments("docs/conf.py")
    return a.get("release") == NEW and a.get("version") == "2.4"


@rubric.item("helm_chart_versions")
def _():
    chart = parse_yaml(read_text(app("helm/tidewave/Chart.yaml")))
    return chart["appVersion"] == NEW and chart["version"] == "0.8.0" and chart["name"] == "tidewave"


@rubric.item("helm_image_tag")
def _():
    values = parse_yaml(read_text(app("helm/tidewave/values.yaml")))
    want = parse_yaml(read_text(fixture("helm/tidewave/values.yaml")))
    want["image"]["tag"] = NEW
    return values == want


@rubric.item("dockerfile_label")
def _():
    return same_except("Dockerfile", f'      org.opencontainers.image.version="{OLD}" \\',
                       f'      org.opencontainers.image.version="{NEW}" \\')


@rubric.item("readme_install_line")
def _():
    return same_except("README.md", f"pip install tidewave=={OLD}", f"pip install tidewave=={NEW}")


@rubric.item("other_versions_untouched")
def _():
    data = tomllib.loads(read_text(app("pyproject.toml")))
    return unchanged("requirements-lock.txt", "src/tidewave/_compat.py", "RELEASE_PLAN.md", "docs/RELEASING.md") \
        and "urllib3>=2.3.1" in data["project"]["dependencies"]


def sections():
    """CHANGELOG.md as a list of (heading, body) for its '## ' sections, plus the link lines."""
    text = read_text(app("CHANGELOG.md"))
    parts = re.split(r"(?m)^(## .*)$", text)
    return [(parts[i].strip(), parts[i + 1].strip()) for i in range(1, len(parts), 2)]


def original_unreleased_body():
    parts = re.split(r"(?m)^(## .*)$", read_text(fixture("CHANGELOG.md")))
    return parts[2].strip()


@rubric.item("changelog_release_section")
def _():
    bodies = [body for heading, body in sections() if heading == f"## [{NEW}] - {DATE}"]
    return bodies == [original_unreleased_body()]


@rubric.item("changelog_new_unreleased")
def _():
    secs = sections()
    return secs[0] == ("## [Unreleased]", "") and secs[1][0].startswith(f"## [{NEW}]") and [h for h, _ in secs[2:]] == ["## [2.3.1] - 2024-09-02", "## [2.3.0] - 2024-07-15"]


@rubric.item("changelog_compare_links")
def _():
    links = re.findall(r"(?m)^\[([^\]]+)\]: (\S+)\s*$", read_text(app("CHANGELOG.md")))
    base = "https://github.com/example/tidewave/compare/"
    return links == [("Unreleased", f"{base}v{NEW}...HEAD"), (NEW, f"{base}v{OLD}...v{NEW}"),
                     (OLD, f"{base}v2.3.0...v{OLD}"), ("2.3.0", f"{base}v2.2.4...v2.3.0")]


rubric.run()
