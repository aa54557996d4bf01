"""The viewer in a real browser: Playwright drives the system's chromium (no browser download) over the
pages of a small table1 run, from a table cell to an episode and from a seed to a node's diff, and keeps
screenshots in ``$TEST_ARTIFACTS/viewer`` (default ``test-artifacts/viewer`` in the checkout)."""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from cli_runs import ONE_LEVEL, table1_command
from playwright.sync_api import sync_playwright

from res_repro.viewer import resolve_source, serve, write_bundle
from res_repro.viewer.sources import newest_run

ARTIFACTS = Path(os.environ.get("TEST_ARTIFACTS", Path(__file__).parents[1] / "test-artifacts")) / "viewer"


def _chromium() -> str:
    found = shutil.which("chromium")
    assert found, "chromium is not installed: run `make system-deps` (scripts/install_system_deps.sh)"
    return found


def _small_run(root: Path) -> Path:
    command = table1_command(
        root,
        "benchmark=terminal_bundled",
        "benchmark.limit=2",
        *ONE_LEVEL,
        "agents=[oracle,nop]",
        "tracking.enabled=false",
    )
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return newest_run(root / "runs")


@pytest.mark.slow
def test_a_browser_walks_from_a_cell_to_an_episode_and_from_a_seed_to_a_node_diff(tmp_path):
    bundle = tmp_path / "view"
    write_bundle(resolve_source(_small_run(tmp_path)), bundle)
    server = serve(bundle, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(url)
            page.screenshot(path=str(ARTIFACTS / "1-run.png"), full_page=True)
            # Table 1: the nop agent's +RES row, its Pass@1 cell
            row = page.locator("table.result-table tr", has=page.locator("td", has_text="nop")).filter(
                has_text="+RES"
            )
            row.locator("a.cell-link").nth(4).click()
            page.wait_for_selector("table.episodes")
            assert "nop on +RES" in page.inner_text("h1")
            page.locator("a.episode-link").first.click()
            page.wait_for_selector("#episode-summary")
            summary = page.inner_text("#episode-summary")
            assert "nop" in summary and "failed" in summary and "E1" in summary
            page.screenshot(path=str(ARTIFACTS / "2-episode.png"), full_page=True)

            page.goto(url)
            page.locator("a.seed-link").first.click()
            page.wait_for_selector("ul.lineage")
            page.screenshot(path=str(ARTIFACTS / "3-lineage.png"), full_page=True)
            page.locator("a.node-link", has_text="E1").first.click()
            page.wait_for_selector("#diff")
            assert page.locator("#diff .diff-add").count() > 0
            assert "Diff against the parent" in page.content()
            page.screenshot(path=str(ARTIFACTS / "4-node-diff.png"), full_page=True)
            browser.close()
    finally:
        server.shutdown()
    assert sorted(p.name for p in ARTIFACTS.glob("*.png")) == [
        "1-run.png",
        "2-episode.png",
        "3-lineage.png",
        "4-node-diff.png",
    ]
