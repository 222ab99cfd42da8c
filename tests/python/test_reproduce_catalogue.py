"""Every experiment of the catalogue, --quick: it runs without a failed run and the
paper's qualitative claims hold; then report.html made from all of them, opened in
headless Chromium where it is installed (the full-length runs are the opt-in slow
suite: scripts/reproduce-full.sh)."""

from __future__ import annotations

import shutil
from html.parser import HTMLParser

import pytest

from hscc import reproduce as rep
from hscc.reproduce import html

NAMES = [e.name for e in rep.catalogue()]
_done: dict[str, rep.Reproduction] = {}


def quick(name: str) -> rep.Reproduction:
    if name not in _done:
        _done[name] = rep.reproduce(name, quick=True)
    return _done[name]


@pytest.mark.parametrize("name", NAMES)
def test_quick_experiment_shows_the_papers_claims(name):
    r = quick(name)
    assert r.failed_runs == 0, r.sweep.failed["error"].to_list()[:3]
    assert r.table["mean"].null_count() < r.table.height, "no cell has a result"
    # known misses (hscc does not reproduce them at full length; the notes say why) are checked by
    # the full-length suite, scripts/reproduce-full.sh, which fails if one of them starts to hold
    missed = [f"{c.text} ({c.detail})" for c in r.claims if not c.holds and not c.known_miss]
    assert not missed, f"{name}: claims that do not hold: {missed}"


class _Sections(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []
        self.images = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section" and "id" in a:
            self.ids.append(a["id"])
        if tag == "img" and a.get("src", "").startswith("data:image/png;base64,"):
            self.images += 1


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(html.report([quick(n) for n in NAMES]), encoding="utf-8")
    return path


def test_the_report_has_every_experiment_with_its_figure(report):
    parsed = _Sections()
    parsed.feed(report.read_text(encoding="utf-8"))
    assert parsed.ids == NAMES
    assert parsed.images == len(NAMES)


CHROMIUM, DRIVER = shutil.which("chromium"), shutil.which("chromedriver")


@pytest.mark.skipif(
    not (CHROMIUM and DRIVER),
    reason="Chromium and chromedriver are not installed "
    "(apt-get install chromium chromium-driver; scripts/test-browser.sh does it)",
)
def test_the_report_opens_in_chromium_without_errors(report):
    from selenium import webdriver
    from selenium.webdriver.common.by import By

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(
        options=options, service=webdriver.ChromeService(executable_path=DRIVER)
    )
    try:
        driver.set_page_load_timeout(60)
        driver.get(report.as_uri())
        errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors
        for name in NAMES:
            section = driver.find_element(By.ID, name)
            assert section.is_displayed() and name in section.text
        broken = driver.execute_script(
            "return [...document.images].filter(i => !i.complete || i.naturalWidth === 0).length"
        )
        assert broken == 0
    finally:
        driver.quit()
