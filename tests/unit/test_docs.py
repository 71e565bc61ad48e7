"""The README and docs/: a README a newcomer reads in five minutes, every link in them resolving to a
file of the repository (and to a heading of it, where the link names one), and every document in
docs/ reachable from the README by links."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCUMENTS = sorted((ROOT / "docs").glob("*.md"))

FENCE = re.compile(r"^```.*?^```", re.S | re.M)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6} +(.+?) *#*$", re.M)


def links(document: Path) -> list[str]:
    return LINK.findall(FENCE.sub("", document.read_text()))


def anchors(document: Path) -> set[str]:
    # GitHub's: lower case, drop what is not a letter, digit, space, hyphen or underscore, spaces to hyphens
    slugs: set[str] = set()
    for heading in HEADING.findall(FENCE.sub("", document.read_text())):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        count = sum(1 for known in slugs if known == slug or re.fullmatch(re.escape(slug) + r"-\d+", known))
        slugs.add(f"{slug}-{count}" if count else slug)
    return slugs


def in_repository(document: Path, target: str) -> Path | None:
    """The file a relative link names, or None for a link outside the repository (a URL, the shared spec)."""
    if re.match(r"[a-z][a-z0-9+.-]*:", target):
        return None
    path = target.split("#", 1)[0]
    found = (document.parent / path).resolve() if path else document
    return found if found.is_relative_to(ROOT) else None


def test_the_readme_reads_in_five_minutes():
    # Issue 39: at most 250 lines
    assert len(README.read_text().splitlines()) <= 250


@pytest.mark.parametrize("document", [README, *DOCUMENTS], ids=lambda path: path.relative_to(ROOT).as_posix())
def test_every_link_resolves(document):
    broken = []
    for target in links(document):
        found = in_repository(document, target)
        if found is None:
            continue
        if not found.exists():
            broken.append(f"{target}: no such file")
        elif "#" in target and found.suffix == ".md" and target.split("#", 1)[1] not in anchors(found):
            broken.append(f"{target}: no such heading in {found.relative_to(ROOT)}")
    assert broken == []


def test_every_document_is_reachable_from_the_readme():
    # Given every link followed from the README, document to document
    reached, waiting = set(), [README]
    while waiting:
        document = waiting.pop()
        for target in links(document):
            found = in_repository(document, target)
            if found and found.suffix == ".md" and found.exists() and found not in reached:
                reached.add(found)
                waiting.append(found)
    # Then each document in docs/ is among them
    assert [path.name for path in DOCUMENTS if path not in reached] == []


def test_the_anchor_rule_is_githubs(tmp_path):
    # Given headings of the shapes docs/ uses, a repeated one, and a fenced line that is no heading
    page = tmp_path / "anchors.md"
    page.write_text("# Deploy\n## `make deploy` and its outputs\n## Email: Cognito's own sender, then SES\n"
                    "## 1. Cold start per function\n## Tests\n## Tests\n```\n## not a heading\n```\n")
    # Then their anchors are the ones GitHub's renderer gives them
    assert anchors(page) == {"deploy", "make-deploy-and-its-outputs", "email-cognitos-own-sender-then-ses",
                             "1-cold-start-per-function", "tests", "tests-1"}
