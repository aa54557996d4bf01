# Sphinx configuration for the tidewave documentation.
project = "tidewave"
author = "The tidewave developers"
copyright = "2021-2024, The tidewave developers"

version = "2.3"
release = "2.3.1"

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
html_theme = "alabaster"
