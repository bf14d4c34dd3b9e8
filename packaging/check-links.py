#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Fails when a relative link in the repository's Markdown points at nothing.

Checks README.md, LEADERBOARD.md, docs/**/*.md, examples/README.md, skills/**/*.md and every
CAPTURE.md and MANIFEST.md: each [text](target) that is not a URL or an anchor must name a file or
folder that exists, relative to the Markdown file (a #fragment is ignored). Prints each broken link
as FILE:LINE: target, and what to do. Usage: python3 packaging/check-links.py [ROOT]
"""
import glob
import os
import re
import sys

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def markdown_files(root):
    patterns = ["README.md", "LEADERBOARD.md", "docs/**/*.md", "examples/README.md", "skills/**/*.md",
                "**/CAPTURE.md", "**/MANIFEST.md"]
    found = set()
    for pattern in patterns:
        for path in glob.glob(os.path.join(root, pattern), recursive=True):
            if os.path.relpath(path, root).split(os.sep)[0] not in ("build", ".git"):  # build trees hold copies
                found.add(os.path.normpath(path))
    return sorted(found)


def broken_links(path):
    """(line number, target) of every relative link in `path` whose target does not exist."""
    base = os.path.dirname(path)
    in_fence = False
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I) or target.startswith("#"):
                    continue  # a URL (http:, mailto:, ...) or an anchor in this file
                file_part = target.split("#", 1)[0]
                if not os.path.exists(os.path.join(base, file_part)):
                    yield number, target


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
    failures = 0
    files = markdown_files(root)
    for path in files:
        for number, target in broken_links(path):
            print(f"{os.path.relpath(path, root)}:{number}: {target} does not exist", file=sys.stderr)
            failures += 1
    if failures:
        print(f"check-links: {failures} broken relative link(s); fix the target or the link "
              "(a moved file: point at its new place, or at the commit that has it)", file=sys.stderr)
        return 1
    print(f"check-links: {len(files)} Markdown files, every relative link resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
