# SPDX-License-Identifier: GPL-2.0
#
# conf.py - Sphinx configuration for copybench's Documentation/.
#
#   make htmldocs        HTML in build/htmldocs/, warnings are errors
#
# Like the kernel's Documentation/, every *.rst here is part of the book,
# listed in index.rst's toctrees in reading order (a page left out is a
# warning, hence an error), written in plain reStructuredText: no
# extension beyond what Debian's python3-sphinx ships.

import os

project = "copybench"
author = "copybench developers"
copyright = "copybench developers, GPL-2.0"

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..",
                       "VERSION"), encoding="ascii") as f:
    release = f.read().strip()
version = release

root_doc = "index"
source_suffix = ".rst"
exclude_patterns = []
highlight_language = "none"
language = "en"
# Options and commands render as typed: no "--" turned into an en dash, no
# curly quotes in 'to_user.native.*'.
smartquotes = False

html_theme = "alabaster"
html_title = "copybench " + release
html_show_sourcelink = False
html_copy_source = False
html_last_updated_fmt = None
