"""The viewer in a real browser: Playwright drives the system's chromium (no browser download) over the
pages of a small Table 1 run on the bundled Terminal suite, and keeps screenshots in
``$TEST_ARTIFACTS/viewer`` (default ``test-artifacts/viewer`` in the checkout).

The run evaluates ``nop`` and a model agent, ``sim_explorer_basic``: the scripted explorer-basic answering
as a model through the OpenAI-compatible endpoint the run serves on loopback (``models=sim``), so its
episodes go through the real SDK path. It follows each seed task's reference plan and repairs nothing,
so it passes the original tasks and fails where a RES change broke a step of that plan: the pass/fail
split the paired pages exist to explain. The bundle is written by ``res-repro view --bundle OUT ROOT``
on the run's root folder (the project folder holding ``.cache`` and ``runs``).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from cli_runs import ONE_LEVEL, table1_command
from playwright.sync_api import Page, sync_playwright

from res_repro.viewer import serve

ARTIFACTS = Path(os.environ.get("TEST_ARTIFACTS", Path(__file__).parents[1] / "test-artifacts")) / "viewer"
MODEL = "sim explorer-basic"  # the model agent's display name in the tables


def _chromium() -> str:
    found = shutil.which("chromium")
    assert found, "chromium is not installed: run `make system-deps` (scripts/install_system_deps.sh)"
    return found


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A Table 1 run (nop and the simulated model), its view written from the run's root folder by the
    command line, served on loopback: the index page's address."""
    root = tmp_path_factory.mktemp("project")
    command = table1_command(
        root,
        "benchmark=terminal_bundled",
        "benchmark.limit=2",
        "models=sim",
        *ONE_LEVEL,
        "agents=[sim_explorer_basic,nop]",
        "tracking.enabled=false",
    )
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    bundle = root / "view"
    viewed = subprocess.run(
        [sys.executable, "-m", "res_repro", "view", "--bundle", str(bundle), str(root)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert viewed.returncode == 0 and "Traceback" not in viewed.stderr, viewed.stdout + viewed.stderr
    server = serve(bundle, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    server.shutdown()


@pytest.fixture
def page(site: str) -> Iterator[Page]:
    """A chromium page at the index."""
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(site)
        yield page
        browser.close()


def _row(page: Page, agent: str, environment: str):
    """The Table 1 row of ``agent`` in ``environment``."""
    rows = page.locator("table.result-table tr", has=page.locator("td", has_text=agent))
    return rows.filter(has=page.locator("td", has_text=re.compile(rf"^{re.escape(environment)}")))


@pytest.mark.slow
def test_a_browser_walks_from_a_cell_to_an_episode_and_from_a_seed_to_a_node_diff(page):
    page.screenshot(path=str(ARTIFACTS / "1-run.png"), full_page=True)
    assert page.locator("#notes-table1 li").count() > 2  # the table's notes, from the Markdown beside it
    _row(page, "nop", "+RES").locator("a.cell-link").nth(4).click()  # its Pass@1 cell
    page.wait_for_selector("table.pairs")
    page.get_by_role("link", name="+RES", exact=True).click()
    page.wait_for_selector("table.episodes")
    assert "nop on +RES" in page.inner_text("h1")
    page.locator("a.episode-link").first.click()
    page.wait_for_selector("#episode-summary")
    summary = page.inner_text("#episode-summary")
    assert "nop" in summary and "failed" in summary and "E1" in summary
    page.screenshot(path=str(ARTIFACTS / "2-episode.png"), full_page=True)

    page.locator("nav a").first.click()
    page.locator("a.seed-link").first.click()
    page.wait_for_selector("#lineage-graph svg")
    assert page.locator("#lineage-graph svg g.node").count() >= 2  # E0 and E1, laid out by dot
    page.screenshot(path=str(ARTIFACTS / "3-lineage.png"), full_page=True)
    page.locator("#lineage-graph svg a", has_text="E1").first.click()  # the drawn node links to its page
    page.wait_for_selector("#diff")
    assert page.locator("#diff .diff-add").count() > 0
    assert "Diff against the parent" in page.content()
    assert page.locator("#dependency-graph svg g.node").count() > 2
    page.screenshot(path=str(ARTIFACTS / "4-node-diff.png"), full_page=True)


@pytest.mark.slow
def test_a_browser_walks_from_a_cell_to_a_paired_page_its_divergence_and_the_change_behind_it(page):
    _row(page, MODEL, "original").locator("a.cell-link").nth(4).click()  # the original's Pass@1 cell
    page.wait_for_selector("table.pairs")
    page.select_option("select[data-filter='original']", "passed")  # the list's filters, in the page
    page.select_option("select[data-filter='scaled']", "failed")
    shown = page.locator("table.pairs tbody tr:visible")
    assert shown.count() >= 1
    page.screenshot(path=str(ARTIFACTS / "5-pairs.png"), full_page=True)
    diverging = shown.filter(has_not=page.locator("td", has_text=re.compile(r"^none$")))
    diverging.first.locator("a.pair-link").click()

    page.wait_for_selector("table.paired")
    summary = page.inner_text("#pair-summary")
    assert "passed" in summary and "failed" in summary
    original, scaled = page.locator("td.original .call"), page.locator("td.scaled .call")
    assert original.count() > 0 and scaled.count() > 0  # both trajectories, turn by turn
    page.locator("#divergence-link").click()
    turn = page.inner_text("#divergence-link").split()[-1]
    assert page.url.endswith(f"#turn-{turn}")
    diverged = page.locator("tr.diverged")
    assert diverged.get_attribute("id") == f"turn-{turn}" and "first divergence" in diverged.inner_text()
    met = diverged.locator("a.met-link").first  # the change the +RES run met where it diverged
    named = met.inner_text()  # "E<depth> <operator>"
    operator = named.split()[-1]
    assert operator in page.inner_text("#changes")
    page.screenshot(path=str(ARTIFACTS / "6-paired.png"), full_page=True)
    met.click()

    page.wait_for_selector("#changes .change")
    anchor = page.url.rsplit("#", 1)[-1]
    assert anchor.startswith("change-")
    change = page.locator(f"#{anchor}")
    assert change.locator(".operator").inner_text() == operator  # the node names the change in words
    assert change.locator("dl.params dt").count() > 0 and "{" not in change.inner_text()
    assert page.inner_text("h1").split()[1] == named.split()[0]  # the node at the depth the link named
    page.screenshot(path=str(ARTIFACTS / "7-node-change.png"), full_page=True)
    assert {p.name for p in ARTIFACTS.glob("*.png")} >= {
        f"{n}.png" for n in ("5-pairs", "6-paired", "7-node-change")
    }
